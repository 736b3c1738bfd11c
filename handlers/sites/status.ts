import { z } from 'zod';
import { documented } from '../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { siteViewer } from '../../lib/sites/viewer.ts';
import { Traffic } from '../../lib/traffic/meter.ts';

const ANSWER = { schema: z.object({ sites: z.array(z.object({ id: z.string(), name: z.string(), fqdn: z.string(), traffic: Traffic })) }) };

// GET /api/sites/status — per site (newest first; an agent sees its allowedSites): requests, bytes,
// errors and latency for the last minute and hour, from nginx's traffic log.
export default route({
  method: 'GET',
  path: '/api/sites/status',
  access: { roles: ADMIN_OR_AGENT, capability: 'sites:read', gate: 'management' },
  response: ANSWER,
  handle: ({ identity, services }) =>
    documented(ANSWER, {
      sites: services.sites.visibleTo(siteViewer(identity)).map((s) => ({ id: s.id, name: s.name, fqdn: s.fqdn, traffic: services.traffic.traffic(`site:${s.fqdn}`) })),
    }),
});
