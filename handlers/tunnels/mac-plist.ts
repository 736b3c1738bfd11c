import { Capability } from '../../lib/auth/capabilities.ts';
import { json, Response } from '../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { PLIST_FILENAME } from '../../lib/tunnels/mac-plist.ts';
import { MacPlistQuery } from '../../lib/tunnels/schema.ts';
import { z } from 'zod';

// GET /api/tunnels/mac-plist — the launchd job as a download, or with ?format=json plus instructions.
export default route<Record<string, never>, MacPlistQuery>({
  method: 'GET',
  path: '/api/tunnels/mac-plist',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsRead, gate: 'management' },
  response: { schema: z.string(), contentType: 'application/x-plist' },
  query: MacPlistQuery,
  async handle({ query, services }) {
    const { plist, instructions } = await services.tunnels.macPlist();
    if (query.format === 'json') return json({ plist, instructions });
    return new Response(plist, {
      headers: { 'content-type': 'application/x-plist', 'content-disposition': `attachment; filename="${PLIST_FILENAME}"` },
    });
  },
});
