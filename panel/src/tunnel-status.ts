// Each tunnel's client, kept current by WS /api/tunnels/status/live (the server tells every change);
// while the socket is down the status is read with GET every 30 s and the socket tried again.
import { useEffect } from 'preact/hooks';
import { wsUrl } from './api.ts';
import { useResource, type Resource } from './resource.ts';

export interface TrafficWindow { requests: number; bytesIn: number; bytesOut: number; errors: number; unreachable: number; p50Ms: number | null; p95Ms: number | null }
export interface TunnelStatus {
  id: string; subdomain: string; enabled: boolean; connected: boolean; connectedSince: string | null; lastSeen: string | null;
  traffic?: { lastMinute: TrafficWindow; lastHour: TrafficWindow };
}

const FALLBACK_MS = 30_000;

export function useTunnelStatus(): Resource<{ tunnels: TunnelStatus[] }> {
  const status = useResource<{ tunnels: TunnelStatus[] }>('/api/tunnels/status', FALLBACK_MS);
  const { update } = status;
  useEffect(() => {
    let ws: WebSocket | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let alive = true;
    const open = () => {
      ws = new WebSocket(wsUrl('/api/tunnels/status/live'));
      ws.onmessage = (e) => {
        try {
          const data = JSON.parse(String(e.data)) as { tunnels: TunnelStatus[] };
          update(() => data);
        } catch { /* not a status message */ }
      };
      ws.onclose = () => {
        if (alive) retry = setTimeout(open, FALLBACK_MS);
      };
    };
    open();
    return () => {
      alive = false;
      clearTimeout(retry);
      ws?.close();
    };
  }, [update]);
  return status;
}
