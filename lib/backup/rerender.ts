import type { Runtime } from '../runtime.ts';
import { servedVhosts } from '../recorded-vhosts.ts';

/**
 * After a restore: the proxy's vhosts (default server, panel, portal and tunnel server; each site; each tunnel)
 * and the tunnel server's authfile are written from the records. Certificates and credentials come
 * from the backup; the tunnel repair asks for a certificate only when one is missing.
 */
export async function rerenderHost(services: Runtime): Promise<string[]> {
  const specs = await servedVhosts(services);
  if (specs.length === 0) return [];
  await services.system.proxy.apply(specs.map((spec) => ({ op: 'put' as const, spec, enabled: true })));
  const report = await services.tunnels.repairHost();
  return report.failures;
}
