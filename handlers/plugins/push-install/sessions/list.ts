import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { PushSessionsQuery } from '../../../../lib/plugins/push-schema.ts';
import { PushSessionList } from '../../../../lib/plugins/response-shapes.ts';

const ANSWER = { schema: PushSessionList };

// GET /api/plugins/push-install/sessions — the audit list of pushes, newest first; ?label= for one agent.
export default route({
  method: 'GET',
  path: '/api/plugins/push-install/sessions',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  query: PushSessionsQuery,
  handle: ({ query, services }) => ({ sessions: services.pushInstall.sessions(query.label) }),
});
