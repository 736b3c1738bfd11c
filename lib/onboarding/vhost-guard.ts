// After a failed run: no vhost of the stack may stay enabled while its certificate is missing or
// expired, or every later nginx reload (tunnels, sites, renewals) would fail on it.
import type { System } from '../system/types.ts';
import { stackVhosts } from './hostnames.ts';

/** Disables such vhosts (files are kept for the retry) and returns their names. */
export async function disableVhostsWithoutCertificate(system: System, domain: string): Promise<string[]> {
  const broken: string[] = [];
  for (const spec of stackVhosts(domain)) {
    const name = system.proxy.vhostName(spec);
    const { enabled } = await system.proxy.state(name);
    if (enabled && !(await system.certs.has(spec.fqdn))) broken.push(name);
  }
  if (broken.length > 0) await system.proxy.apply(broken.map((name) => ({ op: 'disable' as const, name })));
  return broken;
}
