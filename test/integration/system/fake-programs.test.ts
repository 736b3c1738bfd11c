// Host adapters against fake executables (test/fakes/bin) where the real program cannot run here:
// systemd is not PID 1, and chisel and Authelia are not packaged.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createSystem, systemConfig, SystemError, type System } from '../../../lib/system/index.ts';
import type { SystemConfigInput } from '../../../lib/system/config.ts';
import { CHISEL_ASSET, FAKES, startFakeHost, type FakeHost } from '../../infra/fake-host.ts';
import { freePorts } from '../../infra/ports.ts';
import { waitFor } from '../../infra/processes.ts';
import { FIRST_PORTAL_USER } from '../../helpers/portal-user.ts';
import { timed } from '../../helpers/timeout.ts';

const s = suite('host adapters with fake systemctl, journalctl, chisel and authelia');
let dir = '';
let fakes: FakeHost;
let chiselChild: ChildProcess | null = null;

const calls = (prog: string) => fakes.calls(prog);
const execFileP = promisify(execFile);

function makeSystem(extra: SystemConfigInput = {}): System {
  const base: SystemConfigInput = {
    driver: 'host',
    ...fakes.config,
    acme: { configDir: join(dir, 'letsencrypt') },
    pki: { dir: join(dir, 'pki') },
  };
  return createSystem(systemConfig({ ...base, ...extra }), { dataDir: dir });
}

s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-fakes-'));
  fakes = await startFakeHost(dir);
});

s.after(async () => {
  chiselChild?.kill('SIGKILL');
  await fakes?.close();
  await rm(dir, { recursive: true, force: true });
});

s('fake systemctl: start/stop/status parsing and the uptime string', timed(60_000, async () => {
  const system = makeSystem();
  await system.services.control('proxy', 'start');
  assert.equal(await system.services.status('proxy'), { name: 'proxy', status: 'active', uptime: '0m' });
  const state = JSON.parse(await readFile(fakes.stateFile, 'utf8'));
  state['nginx.service'].since = Date.now() - (2 * 86400 + 3 * 3600 + 4 * 60 + 5) * 1000;
  await writeFile(fakes.stateFile, JSON.stringify(state));
  assert.equal(await system.services.status('proxy'), { name: 'proxy', status: 'active', uptime: '2d 3h 4m' });
  await system.services.control('proxy', 'stop');
  assert.equal(await system.services.status('proxy'), { name: 'proxy', status: 'inactive', uptime: '' });
  await system.services.control('proxy', 'reload').then(() => assert.unreachable(), (e: SystemError) => assert.match(e.message, 'not active'));
  await system.services.control('panel', 'stop').then(() => assert.unreachable(), (e: Error) => assert.instance(e, SystemError));
  const argv = await calls('systemctl');
  assert.equal(argv[0], ['start', 'nginx']);
  assert.ok(argv.some((a) => a.join(' ') === 'is-active nginx'));
  assert.ok(argv.some((a) => a.join(' ') === 'show nginx --timestamp=utc -p ActiveEnterTimestamp'));
  assert.ok(argv.some((a) => a.join(' ') === 'stop nginx'));
  assert.not.ok(argv.some((a) => a[0] === 'stop' && a[1] === 'relay-panel'));
}));

s('fake journalctl: follow parses short-iso lines and kills the child on close', timed(60_000, async () => {
  const system = makeSystem();
  const follow = system.services.follow('tunnel-server', 3);
  const seen: Array<{ timestamp: string; message: string }> = [];
  for await (const line of follow) {
    seen.push(line);
    if (seen.length === 5) break; // 3 backlog + 2 followed; leaving the loop closes the follow
  }
  assert.equal(seen[0], { timestamp: '2026-11-21T12:00:00.000Z', message: 'line 0' });
  assert.is(seen[4]!.message, 'line 4');
  assert.equal((await calls('journalctl')).at(-1), ['-u', 'chisel', '-f', '-n', '3', '-o', 'short-iso', '--no-pager']);
  const pid = Number(await readFile(fakes.journalPidFile, 'utf8'));
  await waitFor('journalctl to exit', async () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }, null, 3000);
}));

s('fake chisel: pinned install, authfile content, reload without restart', timed(60_000, async () => {
  const system = makeSystem();
  await system.tunnelServer.install();
  assert.is((await stat(join(dir, 'bin', 'chisel'))).mode & 0o777, 0o755);
  const systemctlCalls = (await calls('systemctl')).map((a) => a.join(' '));
  assert.ok(systemctlCalls.includes('daemon-reload'));
  assert.ok(systemctlCalls.includes('enable --now chisel'));
  const unit = await readFile(join(dir, 'systemd', 'chisel.service'), 'utf8');
  const execStart = /^ExecStart=(.*)$/m.exec(unit)![1]!.split(' ');
  assert.equal(execStart.slice(1, 7), ['server', '--reverse', '--host', '127.0.0.1', '--port', '9090']);
  // the host key the install made (0640: chisel's group reads it), named by the unit: the fingerprint survives restarts
  const keyfile = join(dir, 'chisel', 'host-key.pem');
  assert.equal(execStart.slice(-2), ['--keyfile', keyfile]);
  assert.is((await stat(keyfile)).mode & 0o7777, 0o640);
  const fingerprint = await system.tunnelServer.fingerprint();
  // run the unit's command line as systemd would
  chiselChild = spawn(execStart[0]!, execStart.slice(1), { stdio: 'ignore' });
  const events = async () => (await readFile(fakes.chiselLog, 'utf8').catch(() => '')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  await waitFor('fake chisel start', async () => (await events()).some((e) => e.event === 'start' && e.keyfile === keyfile), null, 30_000);

  const cred = await system.tunnelServer.credential();
  await system.tunnelServer.setAllowedPorts([8002, 8001]);
  const expected = { [`${cred.user}:${cred.password}`]: ['^R:127\\.0\\.0\\.1:8001$', '^R:127\\.0\\.0\\.1:8002$'] };
  await waitFor('reload', async () => (await events()).some((e) => e.event === 'reload' && JSON.stringify(e.users) === JSON.stringify(expected)), null, 30_000);
  await system.tunnelServer.setAllowedPorts([8002]);
  const single = { [`${cred.user}:${cred.password}`]: ['^R:127\\.0\\.0\\.1:8002$'] };
  await waitFor('second reload', async () => (await events()).some((e) => e.event === 'reload' && JSON.stringify(e.users) === JSON.stringify(single)), null, 30_000);
  const all = await events();
  assert.ok(all.every((e) => e.pid === chiselChild!.pid), 'one chisel process throughout');
  assert.not.ok(all.some((e) => e.event === 'watch-lost' || e.event === 'stop'));
  assert.not.ok((await calls('systemctl')).some((a) => a[0] === 'restart'), 'no restart');
  assert.equal(await system.tunnelServer.allowedPorts(), [8002]);
  assert.is((await stat(join(dir, 'chisel', 'users.json'))).mode & 0o7777, 0o640);
  // a second install downloads nothing and keeps the grants
  fakes.closeConnections();
  const downloads = fakes.assetRequests();
  await system.tunnelServer.install();
  assert.is(fakes.assetRequests(), downloads, 'no download for an installed release');
  assert.equal(await system.tunnelServer.allowedPorts(), [8002]);
  // a program the operator put in place (no release marker: install --no-downloads) is used as it is
  await rm(join(dir, 'bin', 'chisel.release'));
  await system.tunnelServer.install();
  assert.is(fakes.assetRequests(), downloads, 'no download over a program in place');
  // the counter does see downloads: a missing program is fetched again
  await rm(join(dir, 'bin', 'chisel'));
  await system.tunnelServer.install();
  assert.is(fakes.assetRequests(), downloads + 1);
  assert.is(await system.tunnelServer.fingerprint(), fingerprint, 'every install keeps the key');
  chiselChild.kill('SIGTERM');
}));

s('fake authelia: pinned tar.gz install, TOTP through the storage CLI, restart', timed(60_000, async () => {
  const system = makeSystem();
  await system.authPortal.install({ domain: 'example.com', users: [FIRST_PORTAL_USER] });
  const cfgPath = join(dir, 'authelia', 'configuration.yml');
  const secretsBefore = await readFile(join(dir, 'authelia', 'secrets.json'), 'utf8');
  // what Authelia's own user reads (0640), writes with the panel (0660: made before its first start), and never sees (0600)
  const modes: Record<string, string> = {};
  for (const name of ['configuration.yml', 'users_database.yml', 'db.sqlite3', 'notification.txt', 'secrets.json', 'relay-portal.json']) {
    modes[name] = ((await stat(join(dir, 'authelia', name))).mode & 0o7777).toString(8);
  }
  assert.equal(modes, { 'configuration.yml': '640', 'users_database.yml': '640', 'db.sqlite3': '660', 'notification.txt': '660', 'secrets.json': '600', 'relay-portal.json': '600' });
  await system.authPortal.install({ domain: 'example.com', users: [FIRST_PORTAL_USER] });
  assert.is(await readFile(join(dir, 'authelia', 'secrets.json'), 'utf8'), secretsBefore, 'secrets survive a second install');
  await system.authPortal.setTotp('alice', 'JBSWY3DPEHPK3PXP');
  assert.equal((await calls('authelia')).at(-1), ['storage', 'user', 'totp', 'generate', '--secret', 'JBSWY3DPEHPK3PXP', '--force', '--config', cfgPath, '--', 'alice']);
  // Authelia wants the secret without its = padding
  await system.authPortal.setTotp('bob', 'JBSWY3DPEE======');
  assert.equal((await calls('authelia')).at(-1), ['storage', 'user', 'totp', 'generate', '--secret', 'JBSWY3DPEE', '--force', '--config', cfgPath, '--', 'bob']);
  await system.authPortal.restart();
  assert.equal((await calls('systemctl')).at(-1), ['restart', 'authelia']);
  assert.match(await readFile(join(dir, 'systemd', 'authelia.service'), 'utf8'), `ExecStart=${join(dir, 'bin', 'authelia')} --config ${cfgPath}`);
}));

// The rule the provisioning order is built on (lib/system/auth-portal/users-database.ts, assertSomeUser):
// the fake plays Authelia's refusal, so a portal started before its first user would fail here too
s('fake authelia, like Authelia 4.38, will not start on a users database without users', timed(60_000, async () => {
  const [port] = await freePorts(1);
  const system = makeSystem({ ports: { authPortal: port! } });
  await system.authPortal.install({ domain: 'example.com', users: [FIRST_PORTAL_USER] });
  const argv = ['--config', join(dir, 'authelia', 'configuration.yml')];
  const usersPath = join(dir, 'authelia', 'users_database.yml');
  const written = await readFile(usersPath, 'utf8');
  await writeFile(usersPath, 'users: {}\n');
  const refused = await execFileP(join(dir, 'bin', 'authelia'), argv).then(() => null, (e: { code: number; stderr: string }) => e);
  assert.ok(refused, 'started on an empty users map');
  assert.is(refused.code, 1);
  assert.match(refused.stderr, 'users: non zero value required');
  await writeFile(usersPath, written);
  const child = spawn(join(dir, 'bin', 'authelia'), argv, { stdio: 'ignore' });
  try {
    await waitFor('fake authelia health', async () => (await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.status === 200, null, 30_000);
  } finally {
    child.kill('SIGTERM');
  }
}));

s('a release with the wrong SHA-256 is never installed', timed(60_000, async () => {
  const target = join(dir, 'bin', 'chisel-bad');
  const system = makeSystem({
    binaries: { systemctl: join(FAKES, 'systemctl'), chisel: target },
    chisel: { dir: join(dir, 'chisel-bad'), release: { version: '1.9.0', url: fakes.assetUrl(CHISEL_ASSET), sha256: '0'.repeat(64) } },
  });
  await system.tunnelServer.install().then(() => assert.unreachable(), (e: Error) => assert.match(e.message, 'SHA-256 mismatch'));
  assert.not.ok(existsSync(target));
}));

s('fake systemctl: the panel\'s renewal timer (relay-panel-renew.timer) and deploy hook', timed(60_000, async () => {
  const system = makeSystem();
  await system.certs.setupAutoRenew();
  const hook = await readFile(join(dir, 'letsencrypt', 'renewal-hooks', 'deploy', 'relay-panel-reload-nginx'), 'utf8');
  assert.match(hook, '/usr/sbin/nginx -c /etc/nginx/nginx.conf -s reload');
  // the panel's own timer, not Debian's certbot.timer (the operator's)
  assert.ok((await calls('systemctl')).some((argv) => argv.join(' ') === 'enable --now relay-panel-renew.timer'));
  const status = await system.certs.autoRenewStatus();
  assert.is(status.active, true);
  assert.ok(status.nextRun && Date.parse(status.nextRun) > Date.now());
  assert.is(status.lastRun, null);
}));

s('fake systemctl: nginx.reloadWith systemctl reloads through the unit', timed(60_000, async () => {
  const system = makeSystem({
    nginx: { reloadWith: 'systemctl', errorLog: join(dir, 'nginx-error.log'), reloadCheckMs: 0 },
  });
  await fakes.setUnit('nginx', 'active');
  await system.proxy.reload();
  assert.equal((await calls('systemctl')).at(-1), ['reload', 'nginx']);
  // the hook certbot stores for timer renewals reloads the same way
  await system.certs.setupAutoRenew();
  const hook = await readFile(join(dir, 'letsencrypt', 'renewal-hooks', 'deploy', 'relay-panel-reload-nginx'), 'utf8');
  assert.match(hook, `exec ${join(FAKES, 'systemctl')} reload nginx\n`);
  // systemctl's own words explain a failed reload
  await fakes.setUnit('nginx', 'inactive');
  await system.proxy.reload().then(() => assert.unreachable(), (e: SystemError) => {
    assert.instance(e, SystemError);
    assert.is(e.message, 'nginx reload failed: nginx.service is not active, cannot reload.');
  });
}));

s.run();
