import type { Runtime } from '../runtime.ts';
import { putSiteVhost } from '../sites/context.ts';
import { stackVhosts } from '../onboarding/hostnames.ts';

/**
 * After a restore: the proxy's vhosts (panel, portal and tunnel server; each site; each tunnel)
 * and the tunnel server's authfile are written from the records. Certificates and credentials come
 * from the backup; the tunnel repair asks for a certificate only when one is missing.
 */
export async function rerenderHost(services: Runtime): Promise<string[]> {
  const { config, system, store } = services;
  const domain = config.value.domain;
  if (config.value.onboarding.status !== 'COMPLETED' || !domain) return [];
  const stack = stackVhosts(domain).map((spec) => ({ op: 'put' as const, spec, enabled: true }));
  const sites = store.sites.value.filter((site) => site.certIssued).map((site) => putSiteVhost(site, domain));
  await system.proxy.apply([...stack, ...sites]);
  const report = await services.tunnels.repairHost();
  return report.failures;
}
