import type { AnyRoute } from '../../lib/http/route.ts';
import systemStats from './stats/show.ts';

/** The routes under /api/system, each in the file its URL names (the registry test checks it). */
export const routes = [systemStats] as const satisfies readonly AnyRoute[];
