import type { AnyRoute } from '../lib/http/route.ts';
import health from './health.ts';
import onboardingStatus from './onboarding/status.ts';
import onboardingDomain from './onboarding/domain.ts';
import onboardingVerifyDns from './onboarding/verify-dns.ts';
import onboardingProvision from './onboarding/provision.ts';
import onboardingProvisionStream from './onboarding/provision-stream.ts';
import tunnelsList from './tunnels/list.ts';
import tunnelsCreate from './tunnels/create.ts';
import tunnelsAgentConfig from './tunnels/agent-config.ts';
import tunnelsMacPlist from './tunnels/mac-plist.ts';
import tunnelsToggle from './tunnels/toggle.ts';
import tunnelsDelete from './tunnels/delete.ts';
import ticketScopesRegister from './tickets/scopes/register.ts';
import ticketScopesList from './tickets/scopes/list.ts';
import ticketScopesDelete from './tickets/scopes/delete.ts';
import ticketInstancesRegister from './tickets/instances/register.ts';
import ticketInstancesDelete from './tickets/instances/delete.ts';
import ticketInstancesHeartbeat from './tickets/instances/heartbeat.ts';
import ticketAssignmentsCreate from './tickets/assignments/create.ts';
import ticketAssignmentsList from './tickets/assignments/list.ts';
import ticketAssignmentsDelete from './tickets/assignments/delete.ts';
import ticketSessionsCreate from './tickets/sessions/create.ts';
import ticketSessionsList from './tickets/sessions/list.ts';
import ticketSessionsHeartbeat from './tickets/sessions/heartbeat.ts';
import ticketSessionsUpdate from './tickets/sessions/update.ts';
import ticketSessionsKill from './tickets/sessions/kill.ts';
import ticketsInbox from './tickets/inbox.ts';
import ticketsValidate from './tickets/validate.ts';
import ticketsRequest from './tickets/request.ts';
import ticketsList from './tickets/list.ts';
import ticketsRevoke from './tickets/revoke.ts';
import servicesList from './services/list.ts';
import servicesLogs from './services/logs.ts';
import servicesAction from './services/action.ts';
import systemStats from './system/stats.ts';

// Every route, listed by hand: the bundle cannot glob at run time. A test checks that each file
// under handlers/ appears here and that no method and path pair repeats.
// Static paths come before parameterized ones with the same prefix (itty matches in order).
export const routes: readonly AnyRoute[] = [
  health,
  onboardingStatus,
  onboardingDomain,
  onboardingVerifyDns,
  onboardingProvision,
  onboardingProvisionStream,
  tunnelsList,
  tunnelsCreate,
  // static /api/tunnels/* paths before /api/tunnels/:id
  tunnelsAgentConfig,
  tunnelsMacPlist,
  tunnelsToggle,
  tunnelsDelete,
  // static /api/tickets/* paths (scopes, instances, assignments, sessions, inbox, validate) before /api/tickets/:ticketId
  ticketScopesRegister,
  ticketScopesList,
  ticketScopesDelete,
  ticketInstancesRegister,
  ticketInstancesDelete,
  ticketInstancesHeartbeat,
  ticketAssignmentsCreate,
  ticketAssignmentsList,
  ticketAssignmentsDelete,
  ticketSessionsCreate,
  ticketSessionsList,
  ticketSessionsHeartbeat,
  ticketSessionsUpdate,
  ticketSessionsKill,
  ticketsInbox,
  ticketsValidate,
  ticketsRequest,
  ticketsList,
  ticketsRevoke,
  servicesList,
  // GET /api/services/:name/logs and POST /api/services/:name/:action differ in method
  servicesLogs,
  servicesAction,
  systemStats,
];
