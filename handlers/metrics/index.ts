import type { AnyRoute } from '../../lib/http/route.ts';
import metrics from './show.ts';

/** The routes under /metrics, each in the file its URL names (the registry test checks it). */
export const routes = [metrics] as const satisfies readonly AnyRoute[];
