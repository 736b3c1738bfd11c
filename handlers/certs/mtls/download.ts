import { attachment } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';

// GET /api/certs/mtls/download — the rotated admin P12, once; 410 afterwards and in hardware-bound mode.
export default route({
  method: 'GET',
  path: '/api/certs/mtls/download',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: {
    404: 'No admin certificate bundle: rotate first (POST /api/certs/mtls/rotate)',
    410: 'The admin certificate bundle was already downloaded, or the admin certificate is hardware-bound',
  },
  response: { schema: z.string(), contentType: 'application/x-pkcs12', kind: 'response' },
  async handle({ services }) {
    return attachment(await services.adminCert.download(), 'application/x-pkcs12', 'client.p12');
  },
});
