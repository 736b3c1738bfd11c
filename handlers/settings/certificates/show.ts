import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { CertificateModeView } from '../../../lib/certs/dns01/mode.ts';

// GET /api/settings/certificates — the certificate mode: per-name or wildcard, its DNS provider and
// which credential keys are set (never their values), and the providers to choose from. Open during
// onboarding too, whose wizard offers the choice.
export default route({
  method: 'GET',
  path: '/api/settings/certificates',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  response: { schema: CertificateModeView },
  handle: ({ services }) => services.certificateMode.view(),
});
