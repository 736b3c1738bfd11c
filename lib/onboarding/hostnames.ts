// The three names onboarding sets up under the base domain, and the URLs the final event gives.
import type { VhostSpec } from '../system/types.ts';

export interface StackHosts {
  panel: string;
  auth: string;
  tunnel: string;
}

export function stackHosts(domain: string): StackHosts {
  return { panel: `panel.${domain}`, auth: `auth.${domain}`, tunnel: `tunnel.${domain}` };
}

/** A vhost of the stack; it serves the certificate of its `fqdn`. */
export type StackVhost = Extract<VhostSpec, { kind: 'panel' | 'auth-portal' | 'tunnel-server' }>;

/** The catch-all of ports 80 and 443 (its own self-signed certificate), written with the stack. */
export const DEFAULT_VHOST: VhostSpec = { kind: 'default' };

/** The three vhosts of task 4. */
export function stackVhosts(domain: string): StackVhost[] {
  const h = stackHosts(domain);
  return [
    { kind: 'panel', fqdn: h.panel },
    { kind: 'auth-portal', fqdn: h.auth },
    { kind: 'tunnel-server', fqdn: h.tunnel },
  ];
}

export interface AccessUrls {
  panel: string;
  authPortal: string;
  ip: string;
}

export function accessUrls(domain: string, ip: string, ports: { https: number; ipPanel: number }): AccessUrls {
  const h = stackHosts(domain);
  const https = ports.https === 443 ? '' : `:${ports.https}`;
  const host = ip.includes(':') ? `[${ip}]` : ip;
  return { panel: `https://${h.panel}${https}`, authPortal: `https://${h.auth}${https}`, ip: `https://${host}:${ports.ipPanel}` };
}
