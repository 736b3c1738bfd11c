// Traffic through a tunnel's or a site's vhost, as GET /api/tunnels/status and /api/sites/status carry it.
export interface TrafficWindow { requests: number; bytesIn: number; bytesOut: number; errors: number; unreachable: number; p50Ms: number | null; p95Ms: number | null }
/** `perMinute`: requests in each of the last 60 minutes, oldest first. */
export interface Traffic { lastMinute: TrafficWindow; lastHour: TrafficWindow; perMinute: number[] }
