// Each site's traffic (the sites this viewer may see), kept current by WS /api/sites/status/live.
import { useLiveResource } from './live-resource.ts';
import type { Resource } from './resource.ts';
import type { GetAnswer } from './api.ts';

type Answer = GetAnswer<'/api/sites/status'>;
export type SiteStatus = Answer['sites'][number];

export const useSitesStatus = (): Resource<Answer> => useLiveResource('/api/sites/status', '/api/sites/status/live');
