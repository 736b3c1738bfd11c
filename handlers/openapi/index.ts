import type { AnyRoute } from '../../lib/http/route.ts';
import openapi from './show.ts';

/** The routes under /api/openapi, each in the file its URL names (the registry test checks it). */
export const routes = [openapi] as const satisfies readonly AnyRoute[];
