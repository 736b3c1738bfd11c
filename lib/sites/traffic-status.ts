// Each site's traffic as GET /api/sites/status and its live feed answer it.
import { z } from 'zod';
import type { SiteRecord } from '../state/schemas.ts';
import { Traffic, type TrafficMeter } from '../traffic/meter.ts';
import { siteTrafficName } from '../traffic/names.ts';

export const SiteStatusItem = z.object({ id: z.string(), name: z.string(), fqdn: z.string(), traffic: Traffic });
export type SiteStatusItem = z.infer<typeof SiteStatusItem>;
export const SitesStatusAnswer = z.object({ sites: z.array(SiteStatusItem) });

export function siteStatuses(sites: readonly SiteRecord[], meter: Pick<TrafficMeter, 'traffic'>): SiteStatusItem[] {
  return sites.map((s) => ({ id: s.id, name: s.name, fqdn: s.fqdn, traffic: meter.traffic(siteTrafficName(s.fqdn)) }));
}
