#!/usr/bin/env node
// Fake systemctl for the install tests: the shared fake (test/fakes/bin/systemctl) keeps unit
// states; on top, two units really run the installed release: the panel's (as FAKE_PANEL_USER)
// and the root helper's socket and service (as root, listening on FAKE_ROOT_SOCKET with the panel
// user's group, as relay-panel-root.socket makes it). Stopping either ends its process, so
// upgrade, rollback and uninstall exercise real restarts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asPanelUserArgv } from './as-panel-user.mjs';

const shared = fileURLToPath(new URL('../../fakes/bin/systemctl', import.meta.url));
const argv = process.argv.slice(2);
const env = process.env;
const words = argv.filter((a, i) => !a.startsWith('-') && argv[i - 1] !== '-p');
const [verb, ...named] = words;
const result = spawnSync(process.execPath, [shared, ...argv], { stdio: 'inherit' });

const processes = {
  [env.FAKE_PANEL_UNIT]: {
    pidFile: env.FAKE_PANEL_PIDFILE,
    argv: () => asPanelUserArgv(env.FAKE_PANEL_USER, [process.execPath, env.FAKE_PANEL_SERVER, '--config', env.FAKE_PANEL_CONFIG]),
  },
  'relay-panel-root': {
    pidFile: env.FAKE_ROOT_PIDFILE,
    argv: () => {
      mkdirSync(dirname(env.FAKE_ROOT_SOCKET), { recursive: true });
      return [process.execPath, [env.FAKE_PANEL_SERVER, 'root-helper', '--config', env.FAKE_ROOT_CONFIG, '--socket', env.FAKE_ROOT_SOCKET, '--socket-group', env.FAKE_PANEL_USER, '--idle-exit', '0']];
    },
    // RemoveOnStop=yes
    stopped: () => rmSync(env.FAKE_ROOT_SOCKET, { force: true }),
    // systemd's socket unit listens before `systemctl start` returns: a caller never finds it refusing
    ready: () => existsSync(env.FAKE_ROOT_SOCKET),
    // and while it is active, a helper that exited is started again by the next connection
    socket: 'relay-panel-root.socket',
  },
};

const running = (pidFile) => {
  try {
    process.kill(Number(readFileSync(pidFile, 'utf8')), 0);
    return true;
  } catch {
    return false;
  }
};
const stop = (pidFile) => {
  try { process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL'); } catch { /* already gone */ }
  rmSync(pidFile, { force: true });
};
const socketActive = (name) => {
  try {
    return JSON.parse(readFileSync(env.FAKE_SYSTEMD_STATE, 'utf8'))[name]?.state === 'active';
  } catch {
    return false;
  }
};
const start = async (unit) => {
  stop(unit.pidFile);
  unit.stopped?.();
  const log = openSync(env.FAKE_PANEL_LOG, 'a');
  const [binary, args] = unit.argv();
  const child = spawn(binary, args, {
    detached: true, stdio: ['ignore', log, log],
    env: { ...Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('FAKE_'))), PATH: env.PATH, NODE_ENV: 'production' },
  });
  writeFileSync(unit.pidFile, String(child.pid));
  let exited = false;
  child.on('exit', () => (exited = true));
  child.unref();
  const deadline = Date.now() + 10_000;
  while (unit.ready && !unit.ready() && !exited && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
};

if (result.status === 0) {
  for (const name of named) {
    const unit = processes[name.replace(/\.(service|socket)$/, '')];
    if (!unit) continue;
    const now = argv.includes('--now');
    const activated = unit.socket && socketActive(unit.socket);
    if (verb === 'restart' || (verb === 'try-restart' && (running(unit.pidFile) || activated))) await start(unit);
    else if ((verb === 'start' || (verb === 'enable' && now)) && !running(unit.pidFile)) await start(unit);
    else if (verb === 'stop' || (verb === 'disable' && now)) {
      stop(unit.pidFile);
      unit.stopped?.();
    }
  }
}
process.exit(result.status ?? 1);
