import type { AnyRoute } from '../../lib/http/route.ts';
import accessGroupsList from './groups/list.ts';
import accessGroupsUpdate from './groups/update.ts';
import accessGroupsDelete from './groups/delete.ts';
import accessGroupMembers from './groups/members/update.ts';
import accessUserReach from './users/show.ts';
import accessRefused from './refused/show.ts';

/** The routes under /api/access, each in the file its URL names (the registry test checks it). */
export const routes = [accessGroupsList, accessGroupsUpdate, accessGroupsDelete, accessGroupMembers, accessUserReach, accessRefused] as const satisfies readonly AnyRoute[];
