import { provisionedStack } from '../../host-state/desired.ts';
import { writeStack } from '../../host-state/stack.ts';
import type { ProvisioningTask } from './context.ts';

// Task 4. The three vhosts and the default server (names without a vhost get a 404, never another
// vhost), as the desired host state lists them; never one whose certificate is missing, which
// nginx would refuse at every later reload.
export const writeVhosts: ProvisioningTask = {
  id: 'vhosts',
  title: 'Configure the reverse proxy',
  async run({ system, config, domain, log }) {
    await writeStack(system.proxy, await provisionedStack(system.certs, domain, config.value), (names) => log(`Writing and enabling ${names.join(', ')}; testing and reloading the proxy`));
    return 'Proxy configuration tested and reloaded with the panel, portal and tunnel vhosts';
  },
};
