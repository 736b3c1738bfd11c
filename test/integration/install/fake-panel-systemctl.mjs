#!/usr/bin/env node
// Fake systemctl for the install tests: the shared fake (test/fakes/bin/systemctl) keeps unit
// states; on top, starting or restarting the panel's unit really runs the installed release
// (FAKE_PANEL_SERVER) as FAKE_PANEL_USER with FAKE_PANEL_SUDOERS as the only sudo rules, and
// stopping it ends that process, so upgrade and rollback exercise a real restart.
import { spawn, spawnSync } from 'node:child_process';
import { openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { asPanelUserArgv } from './as-panel-user.mjs';

const shared = fileURLToPath(new URL('../../fakes/bin/systemctl', import.meta.url));
const argv = process.argv.slice(2);
const env = process.env;
const words = argv.filter((a) => !a.startsWith('-'));
const [verb, unit] = words;
// the shared fake has no `disable`: `disable --now` is a stop, a plain disable changes no state
const plainDisable = verb === 'disable' && !argv.includes('--now');
const delegated = verb === 'disable' ? ['stop', unit] : argv;
const result = plainDisable ? { status: 0 } : spawnSync(process.execPath, [shared, ...delegated], { stdio: 'inherit' });
if (result.status === 0 && unit === env.FAKE_PANEL_UNIT) {
  const pidFile = env.FAKE_PANEL_PIDFILE;
  const stop = () => {
    let pid = 0;
    try { pid = Number(readFileSync(pidFile, 'utf8')); } catch { return; }
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
    rmSync(pidFile, { force: true });
  };
  const running = () => {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8')), 0);
      return true;
    } catch {
      return false;
    }
  };
  const start = () => {
    stop();
    const log = openSync(env.FAKE_PANEL_LOG, 'a');
    const [binary, args] = asPanelUserArgv(env.FAKE_PANEL_USER, env.FAKE_PANEL_SUDOERS, [process.execPath, env.FAKE_PANEL_SERVER, '--config', env.FAKE_PANEL_CONFIG]);
    const child = spawn(binary, args, {
      detached: true, stdio: ['ignore', log, log],
      env: { ...Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('FAKE_'))), PATH: env.PATH, NODE_ENV: 'production' },
    });
    writeFileSync(pidFile, String(child.pid));
    child.unref();
  };
  if (verb === 'restart' || ((verb === 'start' || (verb === 'enable' && argv.includes('--now'))) && !running())) start();
  if (verb === 'stop' || (verb === 'disable' && argv.includes('--now'))) stop();
}
process.exit(result.status ?? 1);
