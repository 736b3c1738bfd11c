// Host services: systemctl for state and control, journalctl -f for logs.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { SystemConfig } from '../config.ts';
import { createLogFollow } from '../common/log-follow.ts';
import { run } from '../exec.ts';
import { parseJournalLine } from '../parsers/journal.ts';
import { parseActiveState, uptimeFromActiveEnter } from '../parsers/systemd.ts';
import { SERVICE_ACTIONS, SERVICE_NAMES, SystemError, type ServiceName, type ServicesAdapter } from '../types.ts';

export function journalArgs(unit: string, backlog: number): string[] {
  return ['-u', unit, '-f', '-n', String(Math.max(0, Math.floor(backlog))), '-o', 'short-iso', '--no-pager'];
}

export function createHostServices(config: SystemConfig, now: () => number): ServicesAdapter {
  const unitOf = (name: ServiceName): string => {
    if (!SERVICE_NAMES.includes(name)) throw new SystemError(`Unknown service '${String(name)}'`);
    return config.units[name];
  };
  const opts = { timeoutMs: config.timeouts.defaultMs };
  return {
    async status(name) {
      const unit = unitOf(name);
      // is-active answers through its exit status too (3 = inactive); only its word matters
      const active = await run(config.binaries.systemctl, ['is-active', unit], { ...opts, okExitCodes: [1, 2, 3, 4] }).then(
        (r) => parseActiveState(r.stdout),
        () => 'unknown' as const,
      );
      let uptime = '';
      if (active === 'active') {
        const show = await run(config.binaries.systemctl, ['show', unit, '--timestamp=utc', '-p', 'ActiveEnterTimestamp', '--value'], opts).catch(() => null);
        uptime = show ? uptimeFromActiveEnter(show.stdout, active, now()) : '';
      }
      return { name, status: active, uptime };
    },
    async control(name, action) {
      const unit = unitOf(name);
      if (!SERVICE_ACTIONS.includes(action)) throw new SystemError(`Unknown action '${String(action)}'`);
      if (name === 'panel' && action === 'stop') throw new SystemError('The panel cannot stop itself');
      await run(config.binaries.systemctl, [action, unit], opts);
    },
    follow(name, backlog) {
      const unit = unitOf(name);
      return createLogFollow((producer) => {
        const child = spawn(config.binaries.journalctl, journalArgs(unit, backlog), { stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => {
          stderr = (stderr + d.toString('utf8')).slice(-4000);
        });
        const lines = createInterface({ input: child.stdout });
        lines.on('line', (line) => {
          const parsed = parseJournalLine(line);
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
