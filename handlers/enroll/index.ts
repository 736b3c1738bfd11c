import type { AnyRoute } from '../../lib/http/route.ts';
import enroll from './create.ts';

/** The routes under /api/enroll, each in the file its URL names (the registry test checks it). */
export const routes = [enroll] as const satisfies readonly AnyRoute[];
