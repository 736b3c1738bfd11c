#!/usr/bin/env node
// Fake systemctl for the install tests: the shared fake (test/fakes/bin/systemctl) keeps unit
// states; on top, two units really run the installed release: the panel's (as FAKE_PANEL_USER)
// and the root helper's socket and service (as root, listening on FAKE_ROOT_SOCKET with the panel
// user's group, as relay-panel-root.socket makes it). Stopping either ends its process, so
// upgrade, rollback and uninstall exercise real restarts.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { asPanelUserArgv } from './as-panel-user.mjs';

const argv = process.argv.slice(2);
const env = process.env;
const words = argv.filter((a, i) => !a.startsWith('-') && argv[i - 1] !== '-p');
const [verb, ...named] = words;
const result = { status: await sharedSystemctl() };

/**
 * Runs the shared fake in this process, on the same argv, and answers its exit code. Not a child
 * process: a Node start per call is most of a systemctl call's cost, and the installer, upgrade and
 * doctor make hundreds of them in the install tests. The shared fake is a script that ends with
 * process.exit(code) at its top level, synchronously, so that exit becomes a throw caught here.
 */
async function sharedSystemctl() {
  const exit = process.exit;
  const ended = Symbol('exit');
  let code = 0;
  process.exit = (c = 0) => {
    code = c;
    throw ended;
  };
  try {
    await import('../../fakes/bin/systemctl');
  } catch (e) {
    if (e !== ended) throw e;
  } finally {
    process.exit = exit;
  }
  return code;
}

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
