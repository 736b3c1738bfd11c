import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';

// GET /api/certs — {certs: [{type, name, domains, expiresAt, daysLeft, expiringSoon}], adminCertificate}, soonest expiry first.
export default route({
  method: 'GET',
  path: '/api/certs',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  async handle({ services }) {
    return json({ certs: await services.letsEncrypt.list(), adminCertificate: await services.adminCert.describe() });
  },
});
