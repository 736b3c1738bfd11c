// Host services: systemctl for state and control, journalctl -f for logs (both through exec.ts).
import type { SystemConfig } from '../config.ts';
import { createLogFollow } from '../common/log-follow.ts';
import { assertServiceControl, assertServiceName } from '../common/service-rules.ts';
import { parseJournalLine } from '../parsers/journal.ts';
import { uptimeFromActiveEnter } from '../parsers/systemd.ts';
import { SystemError, type ServiceAction, type ServiceName, type ServicesAdapter } from '../types.ts';
import { spawnStreaming } from '../exec.ts';
import { isActive, systemctl } from './systemctl.ts';

export function journalArgs(unit: string, backlog: number): string[] {
  return ['-u', unit, '-f', '-n', String(Math.max(0, Math.floor(backlog))), '-o', 'short-iso', '--no-pager'];
}

/**
 * Restarting the panel stops this very process: a blocking systemctl would wait for a stop that
 * waits (graceful shutdown) for the request running systemctl. `--no-block` queues the job, the
 * answer goes out, then systemd's SIGTERM shuts the panel down cleanly.
 */
export function controlArgs(name: ServiceName, action: ServiceAction, unit: string): string[] {
  return name === 'panel' && action === 'restart' ? [action, '--no-block', unit] : [action, unit];
}

export function createHostServices(config: SystemConfig, now: () => number): ServicesAdapter {
  const unitOf = (name: ServiceName): string => config.units[assertServiceName(name)];
  return {
    async status(name) {
      const unit = unitOf(name);
      const active = await isActive(config, unit);
      let uptime = '';
      if (active === 'active') {
        const show = await systemctl(config, ['show', unit, '--timestamp=utc', '-p', 'ActiveEnterTimestamp', '--value']).catch(() => null);
        uptime = show ? uptimeFromActiveEnter(show.stdout, active, now()) : '';
      }
      return { name, status: active, uptime };
    },
    async control(name, action) {
      assertServiceControl(name, action);
      await systemctl(config, controlArgs(name, action, config.units[name]));
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
