import type { AnyRoute } from '../../lib/http/route.ts';
import auditList from './list.ts';

/** The routes under /api/audit, each in the file its URL names (the registry test checks it). */
export const routes = [auditList] as const satisfies readonly AnyRoute[];
