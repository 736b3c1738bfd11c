import { Capability } from '../../../lib/auth/capabilities.ts';
import { hasCapability } from '../../../lib/auth/identity.ts';
import { json, Response } from '../../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { PLIST_FILENAME } from '../../../lib/tunnels/mac-plist.ts';
import { MacPlistJson, MacPlistQuery } from '../../../lib/tunnels/schema.ts';
import { z } from 'zod';

// GET /api/tunnels/mac-plist — the launchd job as a download, or with ?format=json plus instructions.
// Every agent may download it (the spec's words; agent-config is the route that needs tunnels:read),
// but the tunnel credential in it goes only to callers with tunnels:read.
export default route({
  method: 'GET',
  path: '/api/tunnels/mac-plist',
  access: { roles: ADMIN_OR_AGENT, gate: 'management' },
  answers: { 400: 'Domain not configured' },
  response: { schema: z.string(), contentType: 'application/x-plist', kind: 'response', json: MacPlistJson },
  query: MacPlistQuery,
  async handle({ query, identity, services }) {
    const { plist, instructions } = await services.tunnels.macPlist(hasCapability(identity, Capability.TunnelsRead));
    if (query.format === 'json') return json({ plist, instructions } satisfies MacPlistJson);
    return new Response(plist, {
      headers: { 'content-type': 'application/x-plist', 'content-disposition': `attachment; filename="${PLIST_FILENAME}"` },
    });
  },
});
