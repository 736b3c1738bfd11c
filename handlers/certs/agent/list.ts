import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';
import { EnrollmentMethod } from '../../../lib/state/schemas.ts';

// GET /api/certs/agent — every agent ever issued, revoked ones included, from the cached serialization;
// enrollmentMethod tells a panel-made PKCS#12 bundle (`p12`) from a key the agent made itself (`hardware-bound`).
export default route({
  method: 'GET',
  path: '/api/certs/agent',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { kind: 'bytes', schema: z.object({ agents: z.array(z.object({ label: z.string(), serial: z.string(), capabilities: z.array(z.string()), allowedSites: z.array(z.string()), enrollmentMethod: EnrollmentMethod, createdAt: z.string(), expiresAt: z.string().nullable(), revoked: z.boolean(), revokedAt: z.string().nullable() }).loose()) }) },
  handle: ({ services }) => services.agentCerts.listJson(),
});
