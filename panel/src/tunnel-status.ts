// Each tunnel's client and traffic, kept current by WS /api/tunnels/status/live.
import { useLiveResource } from './live-resource.ts';
import type { Resource } from './resource.ts';
import type { Traffic } from './traffic.ts';

export interface TunnelStatus {
  id: string; subdomain: string; enabled: boolean; connected: boolean; connectedSince: string | null; lastSeen: string | null;
  traffic?: Traffic;
}

export const useTunnelStatus = (): Resource<{ tunnels: TunnelStatus[] }> => useLiveResource('/api/tunnels/status', '/api/tunnels/status/live');
