import { setTimeout as sleep } from 'node:timers/promises';
import { SERVICE_NAMES, type ServiceStatus } from '../../system/types.ts';
import type { ProvisioningTask } from './context.ts';

// Task 5. A unit that was just (re)started may still be activating, so an inactive one gets a few
// more looks; a failed one will not recover by waiting and fails the task at once.
export const verifyServices: ProvisioningTask = {
  id: 'services',
  title: 'Verify the services',
  async run({ system, serviceCheck, log }) {
    for (let attempt = 1; ; attempt++) {
      const statuses = await Promise.all(SERVICE_NAMES.map((name) => system.services.status(name)));
      const down = statuses.filter((s) => s.status !== 'active');
      if (down.length === 0) {
        for (const s of statuses) log(`${s.name}: active${s.uptime ? ` (up ${s.uptime})` : ''}`);
        return 'All four services are running';
      }
      if (attempt >= serviceCheck.attempts || down.some((s) => s.status === 'failed')) throw new Error(`Not running: ${describe(down)}`);
      log(`Waiting for ${describe(down)}`);
      await sleep(serviceCheck.delayMs);
    }
  },
};

function describe(down: ServiceStatus[]): string {
  return down.map((s) => `${s.name} (${s.status})`).join(', ');
}
