// Each site's traffic (the sites this viewer may see), kept current by WS /api/sites/status/live.
import { useLiveResource } from './live-resource.ts';
import type { Resource } from './resource.ts';
import type { Traffic } from './traffic.ts';

export interface SiteStatus { id: string; name: string; fqdn: string; traffic: Traffic }

export const useSitesStatus = (): Resource<{ sites: SiteStatus[] }> => useLiveResource('/api/sites/status', '/api/sites/status/live');
