import type { AnyRoute } from '../../lib/http/route.ts';
import certsList from './list.ts';
import certsAutoRenewStatus from './auto-renew-status/show.ts';
import certsLimits from './limits/show.ts';
import certsMtlsRotate from './mtls/rotate.ts';
import certsMtlsDownload from './mtls/download.ts';
import certsAdminUpgrade from './admin/upgrade-to-hardware-bound.ts';
import certsAdminAuthMode from './admin/auth-mode/show.ts';
import certsRenew from './renew.ts';
import certsAgentList from './agent/list.ts';
import certsAgentCreate from './agent/create.ts';
import certsAgentEnrollToken from './agent/enroll.ts';
import certsAgentDownload from './agent/download.ts';
import certsAgentRevoke from './agent/delete.ts';
import certsAgentCapabilities from './agent/capabilities/update.ts';
import certsAgentAllowedSites from './agent/allowed-sites/update.ts';
import certsAgentGrants from './agent/update.ts';
import certsAgentRemove from './agent/record/delete.ts';

/** The routes under /api/certs, each in the file its URL names (the registry test checks it). */
export const routes = [certsList, certsAutoRenewStatus, certsLimits, certsMtlsRotate, certsMtlsDownload, certsAdminUpgrade, certsAdminAuthMode, certsRenew, certsAgentList, certsAgentCreate, certsAgentEnrollToken, certsAgentDownload, certsAgentRevoke, certsAgentCapabilities, certsAgentAllowedSites, certsAgentGrants, certsAgentRemove] as const satisfies readonly AnyRoute[];
