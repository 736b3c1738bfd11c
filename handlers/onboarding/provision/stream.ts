import { ADMIN_ONLY, wsRoute } from '../../../lib/http/route.ts';
import { z } from 'zod';

// WS /api/onboarding/provision/stream — the shared progress stream; the current state comes first.
export default wsRoute({
  path: '/api/onboarding/provision/stream',
  access: { roles: ADMIN_ONLY, gate: 'onboarding' },
  response: { schema: z.object({ type: z.enum(['state', 'task', 'error', 'complete']), task: z.string(), title: z.string(), status: z.string(), message: z.string(), log: z.string(), progress: z.object({ current: z.number(), total: z.number() }) }).loose() },
  connect({ services }, socket) {
    services.onboarding.attachStream(socket);
  },
});
