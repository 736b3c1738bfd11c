import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { PushSessionsQuery } from '../../../lib/plugins/push-schema.ts';

// GET /api/plugins/push-install/sessions — the audit list of pushes, newest first; ?label= for one agent.
export default route<Record<string, never>, PushSessionsQuery>({
  method: 'GET',
  path: '/api/plugins/push-install/sessions',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  query: PushSessionsQuery,
  handle: ({ query, services }) => json({ sessions: services.pushInstall.sessions(query.label) }),
});
