// The three names onboarding sets up under the base domain, and the URLs the final event gives.
export interface StackHosts {
  panel: string;
  auth: string;
  tunnel: string;
}

export function stackHosts(domain: string): StackHosts {
  return { panel: `panel.${domain}`, auth: `auth.${domain}`, tunnel: `tunnel.${domain}` };
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
