import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';

// GET /api/openapi.json — the OpenAPI 3.1 description of every route served now, mounts included.
export default route({
  method: 'GET',
  path: '/api/openapi.json',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  response: { kind: 'bytes', schema: z.object({ openapi: z.literal('3.1.0'), info: z.object({ title: z.string(), version: z.string() }).loose(), paths: z.record(z.string(), z.record(z.string(), z.unknown())) }).loose() },
  handle: ({ services }) => services.apiDescription.json(),
});
