import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CompleteEvent, StreamMessage, TaskEvent } from '../../../lib/onboarding/events.ts';
import { sandboxPaths, type FailurePoint } from '../../../lib/system/sandbox-system.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { defined } from '../../helpers/defined.ts';
import { DOMAIN, EMAIL, HOST_IP, holdCertificates, nextOutcome, provisionAndWait, sandbox, walkToDnsReady, CHEAP_ONBOARDING } from './support.ts';

const s = suite('onboarding provisioning');
let t: TestApp;
s.before.each(async () => {
  t = await createTestApp({ onboarding: CHEAP_ONBOARDING });
  await walkToDnsReady(t);
});
s.after.each(async () => {
  await t.close();
});

const status = async () => (await t.call('GET', '/api/onboarding/status')).body.status;
const paths = () => sandboxPaths(t.services.store.dataDir);
const vhostNames = [`relay-panel-panel.${DOMAIN}.conf`, `relay-auth-portal-auth.${DOMAIN}.conf`, `relay-tunnel-server-tunnel.${DOMAIN}.conf`];

async function vhostStates() {
  return Promise.all(vhostNames.map((n) => t.services.system.proxy.state(n)));
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

s('a run does the six tasks in order and ends COMPLETED with the final event', async () => {
  const events: StreamMessage[] = [];
  t.services.onboarding.board.subscribe((m) => events.push(m));
  const { outcome } = await provisionAndWait(t);
  assert.is(outcome.type, 'complete');
  assert.is(await status(), 'COMPLETED');

  // order: each task starts after the previous one finished
  const starts = events.filter((e): e is TaskEvent => e.type === 'task' && e.status === 'running' && e.message.endsWith('...'));
  assert.equal(starts.map((e) => e.task), ['tunnel-server', 'auth-portal', 'certificates', 'vhosts', 'services', 'complete']);
  for (const e of events.filter((m) => m.type !== 'state')) {
    assert.equal(Object.keys(e).slice(0, 7), ['type', 'task', 'title', 'status', 'message', 'log', 'progress']);
    assert.is(e.progress.total, 6);
  }
  const done = events.filter((e) => e.type === 'task' && e.status === 'done').map((e) => e.progress.current);
  assert.equal(done, [1, 2, 3, 4, 5]);

  const final = outcome as CompleteEvent;
  assert.is(final.task, 'complete');
  assert.is(final.status, 'done');
  assert.equal(final.progress, { current: 6, total: 6 });
  assert.is(final.credentials.username, 'admin');
  assert.match(final.credentials.password, /^[A-Za-z2-9]{20}$/);
  assert.equal(final.urls, { panel: `https://panel.${DOMAIN}`, authPortal: `https://auth.${DOMAIN}`, ip: `https://${HOST_IP}:9292` });

  // what the sandbox did
  const sb = sandbox(t);
  assert.equal(sb.eventsOf('certs.issue').map((e) => (e.detail as { fqdn: string }).fqdn), [`panel.${DOMAIN}`, `auth.${DOMAIN}`, `tunnel.${DOMAIN}`]);
  assert.is(sb.eventsOf('certs.setupAutoRenew').length, 1);
  assert.equal(await vhostStates(), vhostNames.map((name) => ({ name, written: true, enabled: true })));
  assert.ok(sb.eventsOf('proxy.reload').length >= 1);
  for (const name of ['proxy', 'tunnel-server', 'auth-portal', 'panel'] as const) {
    assert.is((await t.services.system.services.status(name)).status, 'active');
  }
  assert.ok(sb.eventsOf('authPortal.restart').length >= 1, 'the portal reloads its users');
  // Authelia 4.38 exits on a users database without users: the very first start already has admin
  const portalStarts = sb.eventsOf('authPortal.start').map((e) => (e.detail as { users: number }).users);
  assert.ok(portalStarts.length >= 1);
  assert.ok(portalStarts.every((n) => n >= 1), `users at each start: ${portalStarts.join(', ')}`);

  // the admin portal user: a bcrypt hash of the password in the final event (at cost 4 here, as the
  // suite provisions; the default cost 12 is test/integration/local/users/real-cost.test.ts's; that
  // it is the hash of this password is checked below)
  const users = await t.services.system.authPortal.readUsers();
  const admin = users.find((u) => u.username === 'admin')!;
  assert.equal({ ...admin, password: '-' }, { username: 'admin', displayname: 'Administrator', email: EMAIL, groups: ['admins'], password: '-' });
  assert.match(admin.password, /^\$2[aby]\$04\$/);
});

s('the plaintext password is written nowhere on disk and never logged', async () => {
  await t.close();
  t = await createTestApp({ durable: true, onboarding: CHEAP_ONBOARDING }); // configuration and store on disk too
  await walkToDnsReady(t);
  const { outcome } = await provisionAndWait(t);
  const password = (outcome as CompleteEvent).credentials.password;
  const admin = (await t.services.system.authPortal.readUsers()).find((u) => u.username === 'admin')!;
  assert.ok(await bcrypt.compare(password, admin.password), 'the portal holds the hash of the password sent');
  for (const file of await filesUnder(t.dir)) {
    assert.not.ok((await readFile(file)).includes(password), `found in ${file}`);
  }
  assert.not.ok(JSON.stringify(t.services.log.recent(500)).includes(password));
  // and the board keeps no copy for later snapshots
  assert.not.ok(JSON.stringify(t.services.onboarding.board.snapshot()).includes(password));
});

// Failure at each task: the error event names the task and the reason, the status stays
// PROVISIONING, and a new POST runs all six tasks again to COMPLETED.
const failures: Array<[task: string, inject: (t: TestApp) => void, reason: string]> = [
  ['tunnel-server', (t) => sandbox(t).failNext('tunnelServer.install', 'download failed: checksum mismatch'), 'download failed: checksum mismatch'],
  ['auth-portal', (t) => sandbox(t).failNext('authPortal.restart', 'authelia exited with status 1'), 'authelia exited with status 1'],
  ['certificates', (t) => sandbox(t).failNext('certs.issue', 'urn:ietf:params:acme:error:rateLimited'), 'urn:ietf:params:acme:error:rateLimited'],
  ['vhosts', (t) => sandbox(t).failNext('proxy.test', 'nginx: [emerg] unknown directive'), 'nginx: [emerg] unknown directive'],
  ['services', (t) => sandbox(t).failNext('services.status', 'systemctl timed out'), 'systemctl timed out'],
  ['complete', (t) => failStatusWriteOnce(t, 'ENOSPC: no space left on device'), 'ENOSPC: no space left on device'],
];

function failStatusWriteOnce(t: TestApp, message: string): void {
  const config = t.services.config;
  const update = config.update.bind(config);
  config.update = async (patch) => {
    if (patch.onboarding?.status !== 'COMPLETED') return update(patch);
    config.update = update;
    throw new Error(message);
  };
}

for (const [task, inject, reason] of failures) {
  s(`a failure in task '${task}' emits an error event; a new POST retries from the start to COMPLETED`, async () => {
    inject(t);
    const events: StreamMessage[] = [];
    const off = t.services.onboarding.board.subscribe((m) => events.push(m));
    const failed = await provisionAndWait(t);
    off();
    assert.is(failed.outcome.type, 'error');
    assert.is(failed.outcome.task, task);
    assert.is(failed.outcome.status, 'error');
    assert.is(failed.outcome.message, reason);
    assert.match(failed.outcome.log, `Failed: ${reason}`);
    assert.is(await status(), 'PROVISIONING');
    const state = t.services.onboarding.board.snapshot();
    assert.is(state.run, 'failed');
    assert.equal(state.error, { task, message: reason });
    const order = ['tunnel-server', 'auth-portal', 'certificates', 'vhosts', 'services', 'complete'];
    assert.equal(
      state.tasks.map((x) => x.status),
      order.map((id, i) => (i < order.indexOf(task) ? 'done' : id === task ? 'error' : 'pending')),
    );
    // nothing after the failing task ran
    assert.not.ok(events.some((e) => e.type === 'task' && order.indexOf(e.task) > order.indexOf(task)));

    const retry = await provisionAndWait(t);
    assert.is(retry.body.started, true);
    assert.is(retry.outcome.type, 'complete', JSON.stringify(retry.outcome));
    assert.is(await status(), 'COMPLETED');
    assert.equal(t.services.onboarding.board.snapshot().tasks.map((x) => x.status), order.map(() => 'done'));
  });
}

s('a retry keeps what the earlier run made: portal secrets, certificates, vhosts, one admin user', async () => {
  sandbox(t).failNext('services.status', 'not yet');
  await provisionAndWait(t);
  const secretsFile = join(paths().authelia, 'secrets.json');
  const secrets = await readFile(secretsFile, 'utf8');
  const config = await readFile(join(paths().authelia, 'configuration.yml'), 'utf8');
  const credential = await t.services.system.tunnelServer.credential();
  const certs = await t.services.system.certs.list();

  const { outcome } = await provisionAndWait(t);
  assert.is(outcome.type, 'complete');
  assert.is(await readFile(secretsFile, 'utf8'), secrets, 'portal secrets and storage key kept');
  assert.is(await readFile(join(paths().authelia, 'configuration.yml'), 'utf8'), config);
  assert.equal(await t.services.system.tunnelServer.credential(), credential);
  assert.equal(await t.services.system.certs.list(), certs, 'certificates not issued again');
  assert.is(sandbox(t).eventsOf('certs.issue').length, 3);
  // the default server (every name without a vhost gets a 404) and the shared tunnels' server are written with the stack
  const written = ['relay-default.conf', ...vhostNames, `relay-tunnels-${DOMAIN}.conf`].sort();
  assert.equal((await readdir(paths().sitesAvailable)).filter((n) => n.startsWith('relay-') && n !== 'relay-ip-panel.conf').sort(), written);
  assert.equal((await readdir(paths().sitesEnabled)).filter((n) => n !== 'relay-ip-panel.conf').sort(), written);
  const users = await t.services.system.authPortal.readUsers();
  assert.equal(users.map((u) => u.username), ['admin']);
  assert.ok(await bcrypt.compare((outcome as CompleteEvent).credentials.password, users[0]!.password), 'the new run password works');
});

s('a retry keeps other portal users', async () => {
  sandbox(t).failNext('services.status', 'not yet');
  await provisionAndWait(t);
  const users = await t.services.system.authPortal.readUsers();
  const extra = { username: 'carol', displayname: 'Carol', email: 'carol@example.test', groups: [], password: defined(users[0], 'the portal admin').password };
  await t.services.system.authPortal.writeUsers([...users, extra]);
  await provisionAndWait(t);
  assert.equal((await t.services.system.authPortal.readUsers()).map((u) => u.username), ['admin', 'carol']);
});

s('a failed run disables a vhost whose certificate went missing; the retry restores it', async () => {
  sandbox(t).failNext('services.status', 'not yet');
  await provisionAndWait(t);
  assert.ok((await vhostStates()).every((v) => v.enabled));
  // the tunnel certificate disappears, and the next run fails before the vhosts are rewritten
  await rm(t.services.system.certs.paths(`tunnel.${DOMAIN}`).fullchain);
  sandbox(t).failNext('certs.issue', 'acme: connection refused');
  const failed = await provisionAndWait(t);
  assert.is(failed.outcome.type, 'error');
  assert.match(failed.outcome.log, `Disabled relay-tunnel-server-tunnel.${DOMAIN}.conf: no valid certificate`);
  assert.equal((await vhostStates()).map((v) => [v.name, v.written, v.enabled]), [
    [vhostNames[0], true, true],
    [vhostNames[1], true, true],
    [vhostNames[2], true, false],
  ]);
  const retry = await provisionAndWait(t);
  assert.is(retry.outcome.type, 'complete');
  assert.ok((await vhostStates()).every((v) => v.enabled));
});

s('a unit still starting gets more looks in task 5', async () => {
  const services = t.services.system.services;
  const status = services.status;
  let looks = 0;
  services.status = async (name) => {
    const real = await status(name);
    if (name === 'auth-portal' && looks++ < 1) return { ...real, status: 'inactive' };
    return real;
  };
  const { outcome } = await provisionAndWait(t);
  assert.is(outcome.type, 'complete');
  assert.match(defined(t.services.onboarding.board.snapshot().tasks[4], 'the services task').log, 'Waiting for auth-portal (inactive)');
  assert.is(looks, 2);

});

s('a failed unit fails task 5 at once', async () => {
  const services = t.services.system.services;
  const status = services.status;
  services.status = async (name) => ({ ...(await status(name)), ...(name === 'tunnel-server' ? { status: 'failed' as const } : {}) });
  const { outcome } = await provisionAndWait(t);
  assert.is(outcome.type, 'error');
  assert.is(outcome.task, 'services');
  assert.is(outcome.message, 'Not running: tunnel-server (failed)');
  // no wait for it to come up: the log names none
  assert.not.match(outcome.log, 'Waiting for');
});

s('a shutdown during a run lets the running task finish, runs no further one and leaves PROVISIONING', async () => {
  const held = holdCertificates(t);
  const outcome = nextOutcome(t);
  assert.is((await t.call('POST', '/api/onboarding/provision')).status, 202);
  await held.entered;
  const closing = t.services.onboarding.close();
  held.release();
  await closing;
  const error = await outcome;
  assert.is(error.type, 'error');
  assert.is(error.task, 'vhosts', 'the task that would have come next');
  assert.is(error.message, 'Provisioning interrupted: the service is shutting down');
  assert.is(t.services.config.value.onboarding.status, 'PROVISIONING');
  assert.equal(t.services.onboarding.board.snapshot().tasks.map((x) => x.status), ['done', 'done', 'done', 'error', 'pending', 'pending']);
  assert.ok((await vhostStates()).every((v) => !v.written), 'task 4 did not run');
});

const failurePoints: FailurePoint[] = ['authPortal.install', 'authPortal.readUsers', 'certs.setupAutoRenew', 'proxy.apply'];
s('other failure points of the adapters also stop the run at their task', async () => {
  const expected = ['auth-portal', 'auth-portal', 'certificates', 'vhosts'];
  for (const [i, point] of failurePoints.entries()) {
    sandbox(t).failNext(point, `boom at ${point}`);
    const { outcome } = await provisionAndWait(t);
    assert.is(outcome.type, 'error', point);
    assert.is(outcome.task, expected[i], point);
    assert.is(outcome.message, `boom at ${point}`);
  }
});

s.run();
