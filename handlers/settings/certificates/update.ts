import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { CertificateModeUpdate, CertificateModeView } from '../../../lib/certs/dns01/mode.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';

// PUT /api/settings/certificates — switches between one certificate per name (HTTP-01) and one
// wildcard certificate for the domain through a DNS provider (DNS-01): installs the provider's
// certbot plugin, writes its credentials (0600), issues, points the vhosts at the new lineage, then
// saves; a failure at any step takes the earlier ones back. Answers {ok: true} and what GET does.
export default route({
  method: 'PUT',
  path: '/api/settings/certificates',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  answers: {
    400: 'Domain and email must be configured before choosing the certificate mode',
    409: 'Switch back to per-name certificates before choosing another DNS provider (now <provider>)',
    500: 'Certificate mode change failed',
  },
  body: CertificateModeUpdate,
  response: { schema: okWith(CertificateModeView.shape) },
  handle: async ({ body, services }) => ({ ok: true as const, ...(await services.certificateMode.set(body)) }),
});
