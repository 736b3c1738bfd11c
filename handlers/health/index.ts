import type { AnyRoute } from '../../lib/http/route.ts';
import health from './show.ts';

/** The routes under /api/health, each in the file its URL names (the registry test checks it). */
export const routes = [health] as const satisfies readonly AnyRoute[];
