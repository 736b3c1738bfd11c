import type { AnyRoute } from '../../lib/http/route.ts';
import servicesList from './list.ts';
import servicesLogs from './logs.ts';
import servicesAction from './action.ts';

/** The routes under /api/services, each in the file its URL names (the registry test checks it). */
export const routes = [servicesList, servicesLogs, servicesAction] as const satisfies readonly AnyRoute[];
