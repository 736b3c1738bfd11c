// Host DNS: a Resolver with the configured servers; NXDOMAIN and NODATA are "does not resolve".
import type { Resolver } from 'node:dns/promises';
import type { SystemConfig } from '../config.ts';
import { SystemError, type DnsAdapter } from '../types.ts';

const NOT_RESOLVING = new Set(['ENOTFOUND', 'ENODATA', 'NOTFOUND', 'NODATA']);

export function createHostDns(config: SystemConfig): DnsAdapter {
  // made on the first lookup: node:dns is not loaded at start
  let resolver: Resolver | undefined;
  const lookups = () => {
    if (resolver) return resolver;
    const made = new (process.getBuiltinModule('node:dns').promises.Resolver)({ timeout: config.dns.timeoutMs, tries: config.dns.tries });
    if (config.dns.servers.length) made.setServers(config.dns.servers);
    return (resolver = made);
  };
  return {
    async resolve4(name) {
      if (typeof name !== 'string' || name.length > 253 || !/^[A-Za-z0-9.-]+$/.test(name)) return [];
      try {
        return await lookups().resolve4(name);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? '';
        if (NOT_RESOLVING.has(code)) return [];
        throw new SystemError(`DNS lookup of ${name} failed: ${code || (e as Error).message}`, 'dns', undefined, code);
      }
    },
  };
}
