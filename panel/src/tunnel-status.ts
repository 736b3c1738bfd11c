// Each tunnel's client and traffic, kept current by WS /api/tunnels/status/live.
import { useLiveResource } from './live-resource.ts';
import type { Resource } from './resource.ts';
import type { GetAnswer } from './api.ts';

type Answer = GetAnswer<'/api/tunnels/status'>;
export type TunnelStatus = Answer['tunnels'][number];

export const useTunnelStatus = (): Resource<Answer> => useLiveResource('/api/tunnels/status', '/api/tunnels/status/live');
