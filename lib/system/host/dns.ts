// Host DNS: a Resolver with the configured servers; NXDOMAIN and NODATA are "does not resolve".
import { promises as dns } from 'node:dns';
import type { SystemConfig } from '../config.ts';
import { SystemError, type DnsAdapter } from '../types.ts';

const NOT_RESOLVING = new Set(['ENOTFOUND', 'ENODATA', 'NOTFOUND', 'NODATA']);

export function createHostDns(config: SystemConfig): DnsAdapter {
  const resolver = new dns.Resolver({ timeout: config.dns.timeoutMs, tries: config.dns.tries });
  if (config.dns.servers.length) resolver.setServers(config.dns.servers);
  return {
    async resolve4(name) {
      if (typeof name !== 'string' || name.length > 253 || !/^[A-Za-z0-9.-]+$/.test(name)) return [];
      try {
        return await resolver.resolve4(name);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? '';
        if (NOT_RESOLVING.has(code)) return [];
        throw new SystemError(`DNS lookup of ${name} failed: ${code || (e as Error).message}`, 'dns', undefined, code);
      }
    },
  };
}
