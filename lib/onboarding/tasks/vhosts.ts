import { DEFAULT_VHOST, stackVhosts } from '../hostnames.ts';
import type { ProvisioningTask } from './context.ts';

// Task 4. One apply for the three vhosts and the default server (names without a vhost get a 404,
// never another vhost): the adapter tests the whole configuration and rolls all of them back when
// the test or the reload fails. 'put' is by name, so a retry rewrites the same
// files instead of adding copies.
export const writeVhosts: ProvisioningTask = {
  id: 'vhosts',
  title: 'Configure the reverse proxy',
  async run({ system, domain, log }) {
    const vhosts = stackVhosts(domain);
    // never enable a vhost whose certificate is missing: nginx would refuse every later reload
    for (const { fqdn } of vhosts) {
      if (!(await system.certs.has(fqdn))) throw new Error(`No valid certificate for ${fqdn}`);
    }
    const specs = [DEFAULT_VHOST, ...vhosts];
    const names = specs.map((v) => system.proxy.vhostName(v));
    log(`Writing and enabling ${names.join(', ')}; testing and reloading the proxy`);
    await system.proxy.apply(specs.map((v) => ({ op: 'put' as const, spec: v, enabled: true })));
    return 'Proxy configuration tested and reloaded with the panel, portal and tunnel vhosts';
  },
};
