// Sandbox services: simulated unit states (the panel is always active) and in-memory journals; the
// panel's journal follows its log file when one is configured, else the panel's own logger.
import type { Clock } from '../../clock.ts';
import type { LogEntry } from '../../log.ts';
import type { SystemConfig } from '../config.ts';
import type { SystemContext } from '../context.ts';
import { createLogFollow } from './log-follow.ts';
import { assertServiceControl, assertServiceName } from './service-rules.ts';
import { tailFile } from './tail-file.ts';
import { formatUptime } from '../systemd/systemd-output.ts';
import { SystemError, type LogFollow, type ServicesAdapter } from '../types.ts';
import type { SandboxControls } from '../sandbox/controls.ts';
import { feedMadeUpLines } from './made-up-logs.ts';

type JournalSources = Pick<SystemContext, 'panelLog' | 'madeUpLogsEveryMs'>;

function followPanelLog(panelLog: NonNullable<SystemContext['panelLog']>, backlog: number): LogFollow {
  return createLogFollow((producer) => {
    const line = (e: LogEntry) => ({ timestamp: e.timestamp, message: `${e.level.toUpperCase()} ${e.message}` });
    for (const entry of panelLog.recent(backlog)) producer.push(line(entry));
    return panelLog.subscribe((entry) => producer.push(line(entry)));
  });
}

export function createSandboxServices(config: SystemConfig, controls: SandboxControls, clock: Clock, sources: JournalSources = {}): ServicesAdapter {
  const now = () => clock.now();
  return {
    async status(name) {
      assertServiceName(name);
      const unit = controls.units.get(name) ?? { status: 'unknown' as const, since: now() };
      return { name, status: unit.status, uptime: unit.status === 'active' ? formatUptime(now() - unit.since) : '' };
    },
    async control(name, action) {
      assertServiceControl(name, action);
      const unit = controls.units.get(name);
      if (action === 'reload' && unit?.status !== 'active') throw new SystemError(`${config.units[name]} is not active, cannot reload`);
      if (action === 'stop') controls.setServiceStatus(name, 'inactive');
      else if (action === 'restart') {
        controls.setServiceStatus(name, 'inactive');
        controls.setServiceStatus(name, 'active');
      } else controls.setServiceStatus(name, 'active');
      controls.record('services.control', { name, action });
      controls.appendLog(name, `${config.units[name]}: ${action}`);
    },
    follow(name, backlog) {
      assertServiceName(name);
      if (name === 'panel' && config.sandbox.panelLogFile) return createLogFollow(tailFile(config.sandbox.panelLogFile, backlog, clock));
      if (name === 'panel' && sources.panelLog) return followPanelLog(sources.panelLog, backlog);
      return createLogFollow((producer) => {
        for (const line of controls.journal(name, backlog)) producer.push(line);
        const unsubscribe = controls.subscribe(name, (line) => producer.push(line));
        const stopMadeUp = sources.madeUpLogsEveryMs ? feedMadeUpLines(controls, name, sources.madeUpLogsEveryMs, clock) : undefined;
        return () => {
          unsubscribe();
          stopMadeUp?.();
        };
      });
    },
  };
}
