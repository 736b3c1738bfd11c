// The meter's name of a tunnel's and a site's vhost, as their nginx traffic log lines give it
// (lib/system/proxy/templates.ts trafficLog).

export const tunnelTrafficName = (fqdn: string): string => `app:${fqdn}`;

export const siteTrafficName = (fqdn: string): string => `site:${fqdn}`;

/** A TCP or UDP tunnel's stream server (its log format: lib/system/streams/render.ts): `tcp:<public port>`, `udp:<public port>`. */
export const streamTrafficName = (stream: { protocol: string; publicPort: number }): string => `${stream.protocol}:${stream.publicPort}`;
