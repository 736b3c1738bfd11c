import { ADMIN_ONLY, wsRoute } from '../../lib/http/route.ts';

// WS /api/onboarding/provision/stream — the shared progress stream; the current state comes first.
export default wsRoute({
  path: '/api/onboarding/provision/stream',
  access: { roles: ADMIN_ONLY, gate: 'onboarding' },
  connect({ services }, socket) {
    services.onboarding.attachStream(socket);
  },
});
