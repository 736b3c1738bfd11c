// Sandbox DNS: explicit records first (runtime, then configuration), then the context's resolver.
import type { SandboxDnsResolver } from '../context.ts';
import type { DnsAdapter } from '../types.ts';
import type { SandboxControls } from '../sandbox/controls.ts';

export function createSandboxDns(controls: SandboxControls, resolver?: SandboxDnsResolver): DnsAdapter {
  return {
    async resolve4(name) {
      const record = controls.dnsRecord(name);
      if (record) return record;
      return (await resolver?.(name)) ?? [];
    },
  };
}
