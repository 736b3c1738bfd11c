// Host services: state and control through the system's RootActions (systemctl, or the root helper), logs through journalctl -f.
import type { SystemConfig } from '../config.ts';
import { createLogFollow } from './log-follow.ts';
import { assertServiceControl, assertServiceName } from './service-rules.ts';
import { parseJournalLine } from './journal.ts';
import { uptimeFromActiveEnter } from '../systemd/systemd-output.ts';
import { SystemError, type ServiceName, type ServicesAdapter } from '../types.ts';
import { spawnStreaming } from '../common/exec.ts';
import type { RootActions } from '../root/root-actions.ts';

export function journalArgs(unit: string, backlog: number): string[] {
  return ['-u', unit, '-f', '-n', String(Math.max(0, Math.floor(backlog))), '-o', 'short-iso', '--no-pager'];
}

export function createHostServices(config: SystemConfig, root: RootActions, now: () => number): ServicesAdapter {
  const unitOf = (name: ServiceName): string => config.units[assertServiceName(name)];
  return {
    async status(name) {
      assertServiceName(name);
      const active = await root.unitState(name);
      let uptime = '';
      if (active === 'active') {
        const show = await root.unitProperties(name, ['ActiveEnterTimestamp']).catch(() => null);
        uptime = show ? uptimeFromActiveEnter(show.ActiveEnterTimestamp ?? '', active, now()) : '';
      }
      return { name, status: active, uptime };
    },
    async control(name, action) {
      assertServiceControl(name, action);
      await root.controlUnit(name, action);
    },
    follow(name, backlog) {
      const unit = unitOf(name);
      return createLogFollow((producer) => {
        const child = spawnStreaming(config.binaries.journalctl, journalArgs(unit, backlog));
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => {
          stderr = (stderr + d.toString('utf8')).slice(-4000);
        });
        const lines = process.getBuiltinModule('node:readline').createInterface({ input: child.stdout });
        lines.on('line', (line) => {
          const parsed = parseJournalLine(line, now);
          if (parsed) producer.push(parsed);
        });
        child.on('error', (e) => producer.end(new SystemError(`journalctl failed: ${e.message}`, 'journalctl')));
        child.on('close', (code, signal) => {
          if (code && code !== 0) producer.end(new SystemError(`journalctl exited with status ${code}: ${stderr.trim()}`, 'journalctl', stderr));
          else producer.end();
          void signal;
        });
        return () => {
          lines.close();
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        };
      });
    },
  };
}
