import type { AnyRoute } from '../../lib/http/route.ts';
import inviteShow from './show.ts';
import inviteAccept from './accept.ts';

/** The routes under /api/invite, each in the file its URL names (the registry test checks it). */
export const routes = [inviteShow, inviteAccept] as const satisfies readonly AnyRoute[];
