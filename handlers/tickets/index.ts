import type { AnyRoute } from '../../lib/http/route.ts';
import ticketScopesRegister from './scopes/create.ts';
import ticketScopesList from './scopes/list.ts';
import ticketScopesDelete from './scopes/delete.ts';
import ticketInstancesRegister from './instances/create.ts';
import ticketInstancesDelete from './instances/delete.ts';
import ticketInstancesHeartbeat from './instances/heartbeat.ts';
import ticketAssignmentsCreate from './assignments/create.ts';
import ticketAssignmentsList from './assignments/list.ts';
import ticketAssignmentsDelete from './assignments/delete.ts';
import ticketSessionsCreate from './sessions/create.ts';
import ticketSessionsList from './sessions/list.ts';
import ticketSessionsHeartbeat from './sessions/heartbeat.ts';
import ticketSessionsUpdate from './sessions/update.ts';
import ticketSessionsKill from './sessions/delete.ts';
import ticketsInbox from './inbox/list.ts';
import ticketsValidate from './validate.ts';
import ticketsRequest from './create.ts';
import ticketsList from './list.ts';
import ticketsRevoke from './delete.ts';

/** The routes under /api/tickets, each in the file its URL names (the registry test checks it). */
export const routes = [ticketScopesRegister, ticketScopesList, ticketScopesDelete, ticketInstancesRegister, ticketInstancesDelete, ticketInstancesHeartbeat, ticketAssignmentsCreate, ticketAssignmentsList, ticketAssignmentsDelete, ticketSessionsCreate, ticketSessionsList, ticketSessionsHeartbeat, ticketSessionsUpdate, ticketSessionsKill, ticketsInbox, ticketsValidate, ticketsRequest, ticketsList, ticketsRevoke] as const satisfies readonly AnyRoute[];
