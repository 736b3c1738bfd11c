import type { AnyRoute } from '../../lib/http/route.ts';
import invitationsList from './list.ts';
import invitationsCreate from './create.ts';
import invitationsDelete from './delete.ts';

/** The routes under /api/invitations, each in the file its URL names (the registry test checks it). */
export const routes = [invitationsList, invitationsCreate, invitationsDelete] as const satisfies readonly AnyRoute[];
