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

/** The three vhosts of task 4, each paired with the certificate name it serves. */
export function stackVhosts(domain: string): { spec: VhostSpec; fqdn: string }[] {
  const h = stackHosts(domain);
  return [
    { spec: { kind: 'panel', fqdn: h.panel }, fqdn: h.panel },
    { spec: { kind: 'auth-portal', fqdn: h.auth }, fqdn: h.auth },
    { spec: { kind: 'tunnel-server', fqdn: h.tunnel }, fqdn: h.tunnel },
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
