import { Capability } from '../../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { SitesStatusAnswer, siteStatuses } from '../../../lib/sites/traffic-status.ts';
import { siteViewer } from '../../../lib/sites/viewer.ts';

const ANSWER = { schema: SitesStatusAnswer };

// GET /api/sites/status — per site (newest first; an agent sees its allowedSites): requests, bytes,
// errors and latency for the last minute and hour and requests per minute, from nginx's traffic log.
export default route({
  method: 'GET',
  path: '/api/sites/status',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.SitesRead, gate: 'management' },
  response: ANSWER,
  handle: ({ identity, services }) => ({ sites: siteStatuses(services.sites.visibleTo(siteViewer(identity)), services.traffic) }),
});
