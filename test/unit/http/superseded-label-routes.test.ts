// Which routes that act for a certificate's label refuse a superseded certificate with 403, and which
// answer it as they answer any caller that is not a ticket's party (tickets.md: the agent-facing
// ticket routes answer authorization failures with their generic 401, 400 or 404). The access guard
// (lib/http/middleware/access-guard.ts) decides by the path; a new label route must land in one list
// on purpose, so a route added under /api/tickets/ cannot stop refusing by accident.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';

const s = suite('label routes and a superseded certificate');

s('every route that needs a label is either a ticket route that answers generically or one that refuses with 403', () => {
  const labelled = routes.filter((route) => route.access.needsLabel).map((route) => `${route.method} ${route.path}`).sort();
  assert.equal(labelled.filter((route) => route.includes(' /api/tickets/')), [
    'GET /api/tickets/inbox',
    'PATCH /api/tickets/sessions/:sessionId',
    'POST /api/tickets/instances',
    'POST /api/tickets/sessions',
    'POST /api/tickets/sessions/:sessionId/heartbeat',
    'POST /api/tickets/validate',
  ]);
  assert.equal(labelled.filter((route) => !route.includes(' /api/tickets/')), ['GET /api/plugins/push-install/agent-status']);
});

s.run();
