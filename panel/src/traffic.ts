// Traffic through a tunnel's or a site's vhost, as GET /api/tunnels/status and /api/sites/status carry it.
import type { GetAnswer } from './api.ts';

/** `perMinute`: requests in each of the last 60 minutes, oldest first. */
export type Traffic = GetAnswer<'/api/tunnels/status'>['tunnels'][number]['traffic'];
export type TrafficWindow = Traffic['lastMinute'];
