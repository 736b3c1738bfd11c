import { ADMIN_ONLY, wsRoute } from '../../../lib/http/route.ts';
import { StreamMessage } from '../../../lib/onboarding/events.ts';

// WS /api/onboarding/provision/stream — the shared progress stream; the current state comes first.
export default wsRoute({
  path: '/api/onboarding/provision/stream',
  access: { roles: ADMIN_ONLY, gate: 'onboarding' },
  response: { schema: StreamMessage },
  connect({ services }, socket) {
    services.onboarding.attachStream(socket);
  },
});
