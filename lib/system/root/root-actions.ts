// What needs root on a box: the units (state, start/stop/restart/reload, enable) and nginx's test
// and reload. `directRootActions` runs systemctl and nginx itself (the root helper, a panel run by
// root, the integration tests); `socketRootActions` (root-client.ts) asks the root helper.
import type { SystemConfig } from '../config.ts';
import { parseActiveState, parseShowProperties } from '../systemd/systemd-output.ts';
import type { ServiceStatus } from '../types.ts';
import { hostNginxControl } from '../proxy/host.ts';
import type { RootUnit, UnitOp, UnitProperty } from './root-protocol.ts';
import { systemctl } from '../systemd/systemctl.ts';

export interface RootActions {
  /** `systemctl is-active`: 'unknown' when systemctl cannot tell (no systemd, no helper) */
  unitState(unit: RootUnit): Promise<ServiceStatus['status']>;
  /** `systemctl show --timestamp=utc -p ...`: the properties as systemd prints them */
  unitProperties(unit: RootUnit, properties: UnitProperty[]): Promise<Record<string, string>>;
  controlUnit(unit: RootUnit, op: UnitOp): Promise<void>;
  daemonReload(): Promise<void>;
  nginxTest(): Promise<void>;
  /** a reload, then a look at nginx's error log for a new [emerg] (a reload can exit 0 and fail) */
  nginxReload(): Promise<void>;
}

export function unitName(config: SystemConfig, unit: RootUnit): string {
  return unit === 'renew-timer' ? config.acme.renewTimer : config.units[unit];
}

/**
 * Restarting the panel stops the very process that asked: a blocking systemctl would wait for a
 * stop that waits (graceful shutdown) for the request running it. `--no-block` queues the job,
 * the answer goes out, then systemd's SIGTERM shuts the panel down cleanly.
 */
export function controlArgs(unit: RootUnit, op: UnitOp, name: string): string[] {
  if (op === 'enable') return ['enable', '--now', name];
  return unit === 'panel' && op === 'restart' ? [op, '--no-block', name] : [op, name];
}

export function directRootActions(config: SystemConfig): RootActions {
  const nginx = hostNginxControl(config);
  return {
    unitState: (unit) =>
      // is-active answers through its exit status too (3 = inactive); only its word matters
      systemctl(config, ['is-active', unitName(config, unit)], [1, 2, 3, 4]).then((r) => parseActiveState(r.stdout), () => 'unknown' as const),
    async unitProperties(unit, properties) {
      const { stdout } = await systemctl(config, ['show', unitName(config, unit), '--timestamp=utc', ...properties.flatMap((p) => ['-p', p])]);
      return parseShowProperties(stdout);
    },
    async controlUnit(unit, op) {
      await systemctl(config, controlArgs(unit, op, unitName(config, unit)));
    },
    async daemonReload() {
      await systemctl(config, ['daemon-reload']);
    },
    nginxTest: () => nginx.test(),
    nginxReload: () => nginx.reload(),
  };
}
