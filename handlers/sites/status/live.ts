import { Capability } from '../../../lib/auth/capabilities.ts';
import { feedSender } from '../../../lib/http/feed-sender.ts';
import { ADMIN_OR_AGENT, wsRoute } from '../../../lib/http/route.ts';
import { SitesStatusAnswer } from '../../../lib/sites/traffic-status.ts';
import { currentSiteViewer } from '../../../lib/sites/viewer.ts';

// WS /api/sites/status/live — {sites} as GET /api/sites/status answers (an agent: its allowedSites
// as they stand at each message), at once and again when that answer changed (checked every 5 s).
export default wsRoute({
  path: '/api/sites/status/live',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.SitesRead, gate: 'management' },
  response: { schema: SitesStatusAnswer },
  feed: true,
  connect({ identity, services }, socket) {
    const stop = services.sitesStatus.subscribe(currentSiteViewer(identity, services.identities), feedSender(socket), () => socket.close(1008, 'access to sites revoked'));
    socket.once('close', stop);
  },
});
