import type { output } from 'zod';
import type { AnyRoute, HttpMethod } from '../lib/http/route.ts';
import health from './health.ts';
import auditList from './audit/list.ts';
import backupDownload from './backup/download.ts';
import backupInspect from './backup/inspect.ts';
import backupRestore from './backup/restore.ts';
import backupRestoreInfo from './backup/restore-info.ts';
import openapi from './openapi.ts';
import metrics from './metrics.ts';
import onboardingStatus from './onboarding/status.ts';
import onboardingDomain from './onboarding/domain.ts';
import onboardingVerifyDns from './onboarding/verify-dns.ts';
import onboardingProvision from './onboarding/provision.ts';
import onboardingProvisionStream from './onboarding/provision-stream.ts';
import tunnelsList from './tunnels/list.ts';
import tunnelsCreate from './tunnels/create.ts';
import tunnelsAgentConfig from './tunnels/agent-config.ts';
import tunnelsStatus from './tunnels/status.ts';
import tunnelsStatusLive from './tunnels/status-live.ts';
import tunnelsMacPlist from './tunnels/mac-plist.ts';
import tunnelsToggle from './tunnels/toggle.ts';
import tunnelsSettings from './tunnels/settings.ts';
import tunnelsTraffic from './tunnels/traffic.ts';
import tunnelsDelete from './tunnels/delete.ts';
import sitesList from './sites/list.ts';
import sitesStatus from './sites/status.ts';
import sitesStatusLive from './sites/status-live.ts';
import sitesCreate from './sites/create.ts';
import sitesUpdate from './sites/update.ts';
import sitesDelete from './sites/delete.ts';
import sitesVerifyDns from './sites/verify-dns.ts';
import sitesFilesList from './sites/files-list.ts';
import sitesFilesDelete from './sites/files-delete.ts';
import sitesFilesUpload from './sites/files-upload.ts';
import usersList from './users/list.ts';
import usersCreate from './users/create.ts';
import usersUpdate from './users/update.ts';
import usersDelete from './users/delete.ts';
import usersResetTotp from './users/reset-totp.ts';
import invitationsList from './invitations/list.ts';
import invitationsCreate from './invitations/create.ts';
import invitationsDelete from './invitations/delete.ts';
import inviteShow from './invite/show.ts';
import inviteAccept from './invite/accept.ts';
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
import certsList from './certs/list.ts';
import certsAutoRenewStatus from './certs/auto-renew-status.ts';
import certsMtlsRotate from './certs/mtls/rotate.ts';
import certsMtlsDownload from './certs/mtls/download.ts';
import certsAdminUpgrade from './certs/admin/upgrade.ts';
import certsAdminAuthMode from './certs/admin/auth-mode.ts';
import certsRenew from './certs/renew.ts';
import certsAgentList from './certs/agent/list.ts';
import certsAgentCreate from './certs/agent/create.ts';
import certsAgentEnrollToken from './certs/agent/enroll-token.ts';
import certsAgentDownload from './certs/agent/download.ts';
import certsAgentRevoke from './certs/agent/revoke.ts';
import certsAgentCapabilities from './certs/agent/capabilities.ts';
import certsAgentAllowedSites from './certs/agent/allowed-sites.ts';
import certsAgentGrants from './certs/agent/grants.ts';
import certsAgentRemove from './certs/agent/remove.ts';
import enroll from './enroll.ts';
import settings2faStatus from './settings/status.ts';
import settings2faSetup from './settings/setup.ts';
import settings2faCancel from './settings/cancel.ts';
import settings2faConfirm from './settings/confirm.ts';
import settings2faVerify from './settings/verify.ts';
import settings2faDisable from './settings/disable.ts';
import servicesList from './services/list.ts';
import servicesLogs from './services/logs.ts';
import servicesAction from './services/action.ts';
import systemStats from './system/stats.ts';
import alertWebhooksList from './alerts/webhooks-list.ts';
import alertWebhooksCreate from './alerts/webhooks-create.ts';
import alertWebhooksUpdate from './alerts/webhooks-update.ts';
import alertWebhooksDelete from './alerts/webhooks-delete.ts';
import alertWebhooksTest from './alerts/webhooks-test.ts';
import alertDeliveries from './alerts/deliveries.ts';
import alertSettingsShow from './alerts/settings-show.ts';
import alertSettingsUpdate from './alerts/settings-update.ts';
import pluginsList from './plugins/list.ts';
import pluginsInstall from './plugins/install.ts';
import pluginsShow from './plugins/show.ts';
import pluginsEnable from './plugins/enable.ts';
import pluginsDisable from './plugins/disable.ts';
import pluginsDelete from './plugins/delete.ts';
import pluginSettingsShow from './plugins/settings-show.ts';
import pluginSettingsUpdate from './plugins/settings-update.ts';
import pushConfigShow from './plugins/push-install/config-show.ts';
import pushConfigUpdate from './plugins/push-install/config-update.ts';
import pushPoliciesList from './plugins/push-install/policies-list.ts';
import pushPoliciesCreate from './plugins/push-install/policies-create.ts';
import pushPoliciesUpdate from './plugins/push-install/policies-update.ts';
import pushPoliciesDelete from './plugins/push-install/policies-delete.ts';
import pushEnable from './plugins/push-install/enable.ts';
import pushDisable from './plugins/push-install/disable.ts';
import pushGrants from './plugins/push-install/grants.ts';
import pushSessions from './plugins/push-install/sessions.ts';
import pushAgentStatus from './plugins/push-install/agent-status.ts';
import pushRequest from './plugins/push-install/push.ts';

// Every route, listed by hand: the bundle cannot glob at run time. A test checks that each file
// under handlers/ appears here and that no method and path pair repeats. The order is free: the
// router tries the most specific patterns first (lib/http/route-order.ts).
const table = [
  health,
  openapi,
  metrics,
  onboardingStatus,
  onboardingDomain,
  onboardingVerifyDns,
  onboardingProvision,
  onboardingProvisionStream,
  tunnelsList,
  tunnelsCreate,
  tunnelsAgentConfig,
  tunnelsStatus,
  tunnelsStatusLive,
  tunnelsMacPlist,
  tunnelsToggle,
  tunnelsSettings,
  tunnelsTraffic,
  tunnelsDelete,
  sitesList,
  sitesStatus,
  sitesStatusLive,
  sitesCreate,
  sitesUpdate,
  sitesDelete,
  sitesVerifyDns,
  sitesFilesList,
  sitesFilesDelete,
  sitesFilesUpload,
  usersList,
  usersCreate,
  usersUpdate,
  usersDelete,
  usersResetTotp,
  invitationsList,
  invitationsCreate,
  invitationsDelete,
  inviteShow,
  inviteAccept,
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
  certsList,
  certsRenew,
  certsAutoRenewStatus,
  certsMtlsRotate,
  certsMtlsDownload,
  certsAdminUpgrade,
  certsAdminAuthMode,
  certsAgentList,
  certsAgentCreate,
  certsAgentEnrollToken,
  certsAgentDownload,
  certsAgentRevoke,
  certsAgentCapabilities,
  certsAgentAllowedSites,
  certsAgentGrants,
  certsAgentRemove,
  enroll,
  settings2faStatus,
  settings2faSetup,
  settings2faCancel,
  settings2faConfirm,
  settings2faVerify,
  settings2faDisable,
  servicesList,
  servicesLogs,
  servicesAction,
  systemStats,
  alertWebhooksList,
  alertWebhooksCreate,
  alertWebhooksUpdate,
  alertWebhooksDelete,
  alertWebhooksTest,
  alertDeliveries,
  alertSettingsShow,
  alertSettingsUpdate,
  pluginsList,
  pluginsInstall,
  pluginsShow,
  pluginsEnable,
  pluginsDisable,
  pluginsDelete,
  pluginSettingsShow,
  pluginSettingsUpdate,
  pushConfigShow,
  pushConfigUpdate,
  pushPoliciesList,
  pushPoliciesCreate,
  pushPoliciesUpdate,
  pushPoliciesDelete,
  pushEnable,
  pushDisable,
  pushGrants,
  pushSessions,
  pushAgentStatus,
  pushRequest,
  auditList,
  backupDownload,
  backupInspect,
  backupRestore,
  backupRestoreInfo,
] as const;

export const routes: readonly AnyRoute[] = table;

/** Every route's type (method, path, schemas, answer), for the panel's API client (the API contract below). */
export type RouteTable = typeof table;

// The API contract, as types only: each route's method and path, what it takes and what it answers,
// read from the table above. The panel's client is typed from it with `import type`, so no server
// code reaches the browser bundle.

type HttpRoutes = Extract<RouteTable[number], { kind: 'http' }>;

/** The route of this method and path pattern (`/api/tunnels/:id`). */
export type ApiRoute<M extends HttpMethod, P extends string> = Extract<HttpRoutes, { method: M; path: P }>;

/** Every path pattern answering this method. */
export type ApiPath<M extends HttpMethod> = Extract<HttpRoutes, { method: M }>['path'];

/** The JSON a route answers with, from its response schema. */
export type Answer<Route> = Route extends { response?: { schema: infer Z } } ? output<Z> : never;

export type ApiAnswer<M extends HttpMethod, P extends string> = Answer<ApiRoute<M, P>>;

/** A path pattern as the URLs it matches: `/api/tunnels/:id` -> `/api/tunnels/${string}`. */
export type PathLike<P extends string> = P extends `${infer Head}:${string}/${infer Rest}`
  ? `${Head}${string}/${PathLike<Rest>}`
  : P extends `${infer Head}:${string}`
    ? `${Head}${string}`
    : P;

/** Every URL a caller may send with this method, a query string allowed. */
export type ApiUrl<M extends HttpMethod> = PathLike<ApiPath<M>> | `${PathLike<ApiPath<M>>}?${string}`;

type WithoutQuery<U extends string> = U extends `${infer Path}?${string}` ? Path : U;
type Matching<M extends HttpMethod, U extends string> = ApiPath<M> extends infer P extends string ? (P extends unknown ? (U extends PathLike<P> ? P : never) : never) : never;
type NarrowerThan<Others extends string, P extends string> = Others extends unknown ? (PathLike<Others> extends PathLike<P> ? Others : never) : never;
/** Of the patterns a URL matches, those no other one narrows (`/enable/:label` over `/:label`), as the router picks. */
type MostSpecific<All extends string, P extends string = All> = P extends unknown ? ([NarrowerThan<Exclude<All, P>, P>] extends [never] ? P : never) : never;
/** The route a URL reaches: the pattern it spells exactly, else the most specific patterns it matches. */
export type RouteOfUrl<M extends HttpMethod, U extends string> =
  WithoutQuery<U> extends ApiPath<M> ? ApiRoute<M, WithoutQuery<U>> : ApiRoute<M, MostSpecific<Matching<M, WithoutQuery<U>>>>;

/** What this URL answers with this method. */
export type UrlAnswer<M extends HttpMethod, U extends string> = Answer<RouteOfUrl<M, U>>;
