import type { Runtime } from '../runtime.ts';
import { putSiteVhost } from '../sites/context.ts';
import { DEFAULT_VHOST, stackVhosts } from '../onboarding/hostnames.ts';

/**
 * After a restore: the proxy's vhosts (default server, panel, portal and tunnel server; each site; each tunnel)
 * and the tunnel server's authfile are written from the records. Certificates and credentials come
 * from the backup; the tunnel repair asks for a certificate only when one is missing.
 */
export async function rerenderHost(services: Runtime): Promise<string[]> {
  const { config, system, store } = services;
  const domain = config.value.domain;
  if (config.value.onboarding.status !== 'COMPLETED' || !domain) return [];
  // never enable a vhost whose certificate is missing: nginx would refuse the whole reload
  const certified = async (fqdn: string) => system.certs.has(fqdn);
  const stack = [{ op: 'put' as const, spec: DEFAULT_VHOST, enabled: true }];
  for (const spec of stackVhosts(domain)) if (await certified(spec.fqdn)) stack.push({ op: 'put' as const, spec, enabled: true });
  const sites = [];
  for (const site of store.sites.value) if (site.certIssued && (await certified(site.fqdn))) sites.push(putSiteVhost(site, domain));
  await system.proxy.apply([...stack, ...sites]);
  const report = await services.tunnels.repairHost();
  return report.failures;
}
