import type { ProvisioningTask } from './context.ts';

// Task 1. The adapter's install is idempotent (pinned binary, kept credential and authfile), so a
// retry simply runs it again.
export const installTunnelServer: ProvisioningTask = {
  id: 'tunnel-server',
  title: 'Install the tunnel server',
  async run({ system, config, log }) {
    log('Installing the tunnel server (pinned, checksummed release) and its service unit');
    await system.tunnelServer.install();
    return `Tunnel server installed, listening on 127.0.0.1:${config.value.system.ports.tunnelServer}`;
  },
};
