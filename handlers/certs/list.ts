import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';
import { AdminCertState } from '../../lib/state/documents.ts';

// GET /api/certs — {certs: [{type, domain, expiresAt, daysUntilExpiry, expiringSoon, name, domains, daysLeft}], adminCertificate},
// soonest expiry first; `domain`/`daysUntilExpiry` are Portlama's names, `name`/`daysLeft` the same values under ours.
export default route({
  method: 'GET',
  path: '/api/certs',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: z.object({ certs: z.array(z.object({ type: z.literal('letsencrypt'), domain: z.string(), expiresAt: z.string(), daysUntilExpiry: z.number(), expiringSoon: z.boolean(), name: z.string(), domains: z.array(z.string()), daysLeft: z.number() })), adminCertificate: AdminCertState.loose() }) },
  async handle({ services }) {
    return { certs: await services.letsEncrypt.list(), adminCertificate: await services.adminCert.describe() };
  },
});
