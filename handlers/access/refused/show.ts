import { z } from 'zod';
import { refusedPage } from '../../../lib/access/refused-page.ts';
import { Response } from '../../../lib/http/responses.ts';
import { route } from '../../../lib/http/route.ts';

// GET /api/access/refused — the page a refused visitor sees: nginx's error_page for the portal's
// 403 on a protected app's vhost asks it here, naming the app by its Host. Public: the visitor has
// no certificate; it says no more than the app's name and the admin's contact. Answered 200: nginx's
// error_page (no `=`) keeps the portal's 403 for the visitor.
export default route({
  method: 'GET',
  path: '/api/access/refused',
  access: { roles: ['admin', 'agent'], gate: 'open', public: true, twoFactorExempt: true },
  response: { schema: z.string(), contentType: 'text/html; charset=utf-8', kind: 'response' },
  async handle({ request, services }) {
    const host = request.headers.get('x-forwarded-host') ?? '';
    const facts = await services.access.refusal(host);
    return new Response(refusedPage(facts), { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
  },
});
