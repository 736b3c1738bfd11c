import { z } from 'zod';
import { Capability } from '../../../lib/auth/capabilities.ts';
import { standingAccess } from '../../../lib/auth/standing-access.ts';
import { feedSender } from '../../../lib/http/feed-sender.ts';
import { ADMIN_OR_AGENT, wsRoute } from '../../../lib/http/route.ts';
import { TunnelStatusItem } from '../../../lib/tunnels/status.ts';

const ACCESS_CHECK_MS = 5_000;

// WS /api/tunnels/status/live — {tunnels} as GET /api/tunnels/status answers, at once and again
// whenever a client connects or goes, a tunnel comes or goes, or traffic moved (checked every 5 s).
export default wsRoute({
  path: '/api/tunnels/status/live',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsRead, gate: 'management' },
  response: { schema: z.object({ tunnels: z.array(TunnelStatusItem) }) },
  feed: true,
  connect({ identity, services }, socket) {
    const allowed = standingAccess(identity, services.identities, Capability.TunnelsRead);
    const sendNow = feedSender(socket);
    // a caller revoked or stripped of tunnels:read since the handshake is told nothing more, and is
    // closed within a status poll (5 s) even when no tunnel changes, as the sites feed is
    const refuse = () => socket.close(1008, 'access to tunnels revoked');
    const send = (json: string) => (allowed() ? sendNow(json) : refuse());
    const stopCheck = services.clock.every(ACCESS_CHECK_MS, () => void (allowed() || refuse()));
    let stop: (() => void) | null = null;
    let closed = false;
    socket.once('close', () => {
      closed = true;
      stopCheck();
      stop?.();
    });
    // subscribed in the same turn as the first answer: no change falls between them, none is sent twice
    void services.tunnelStatus.text().then((json) => {
      if (closed) return;
      send(json);
      stop = services.tunnelStatus.subscribe(send);
    }, () => socket.close(1011, 'tunnel status unavailable'));
  },
});
