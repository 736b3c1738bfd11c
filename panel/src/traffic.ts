// Traffic through a tunnel's or a site's vhost, as GET /api/tunnels/status and /api/sites/status carry it,
// and a tunnel's last hour per minute (GET /api/tunnels/:id/traffic, /api/tunnels/streams/:id/traffic).
import type { GetAnswer } from './api.ts';

/** `perMinute`: requests in each of the last 60 minutes, oldest first. */
export type Traffic = GetAnswer<'/api/tunnels/status'>['tunnels'][number]['traffic'];
export type TrafficWindow = Traffic['lastMinute'];

/** One minute of a tunnel's last hour: the HTTP and the TCP/UDP tunnels' routes answer the same shape. */
export type TrafficMinute = GetAnswer<'/api/tunnels/:id/traffic'>['minutes'][number];
/** The minutes a tunnel's traffic answer holds: the charts' width. */
export const TRAFFIC_MINUTES = 60;
/** A minute's start as the viewer's clock says it (the charts' tables). */
export const clockTime = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
