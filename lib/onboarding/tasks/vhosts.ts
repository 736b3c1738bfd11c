import { provisionedStack } from '../../host-state/desired.ts';
import { writeStack } from '../../host-state/stack.ts';
import type { ProvisioningTask } from './context.ts';

// Task 4. The three vhosts and the default server (names without a vhost get a 404, never another
// vhost), as the desired host state lists them; never one whose certificate is missing, which
// nginx would refuse at every later reload.
export const writeVhosts: ProvisioningTask = {
  id: 'vhosts',
  title: 'Configure the reverse proxy',
  async run({ system, config, domain, log, modeGate }) {
    // the mode read and the stack written with no switch in between: a switch to wildcard after
    // the read and before the write would find no stack served and leave the shared server to it
    const write = async () => writeStack(system.proxy, await provisionedStack(system.certs, domain, config.value), (names) => log(`Writing and enabling ${names.join(', ')}; testing and reloading the proxy`));
    await (modeGate ? modeGate.shared(write) : write());
    return 'Proxy configuration tested and reloaded with the panel, portal and tunnel vhosts';
  },
};
