// The services routes on the host driver, with the fake systemctl and journalctl of test/fakes/bin
// (systemd is not PID 1 here): argv, status parsing, and the follow processes the log stream starts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { childProcesses, eventually, openLogViewer } from '../../helpers/service-logs.ts';
import { timed } from '../../helpers/timeout.ts';
import { startFakeHost, type FakeHost } from '../../infra/fake-host.ts';

const s = suite('services on the host driver with fake systemctl and journalctl');
let dir = '';
let fakes: FakeHost;
let t: TestApp;
let http: Awaited<ReturnType<typeof serve>>;

const followers = () => childProcesses('journalctl');

s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-services-fake-'));
  fakes = await startFakeHost(dir, ['nginx', 'relay-panel']);
  t = await createTestApp({
    config: { system: { driver: 'host', ...fakes.config, acme: { configDir: join(dir, 'letsencrypt') }, pki: { dir: join(dir, 'pki') } } },
  });
  await t.completeOnboarding();
  http = await serve(t.app);
});
s.after.each(async () => {
  await t.close();
  await http.close();
  await fakes.close();
  await rm(dir, { recursive: true, force: true });
});

s('fake systemctl: GET /api/services reads is-active and ActiveEnterTimestamp', timed(60_000, async () => {
  await fakes.setUnit('authelia', 'failed');
  const { status, body } = await t.call('GET', '/api/services');
  assert.is(status, 200);
  assert.equal(body.services, [
    { name: 'proxy', status: 'active', uptime: '0m' },
    { name: 'tunnel-server', status: 'inactive', uptime: '' },
    { name: 'auth-portal', status: 'failed', uptime: '' },
    { name: 'panel', status: 'active', uptime: '0m' },
  ]);
  const argv = (await fakes.calls('systemctl')).map((a) => a.join(' '));
  for (const unit of ['nginx', 'chisel', 'authelia', 'relay-panel']) assert.ok(argv.includes(`is-active ${unit}`), unit);
  assert.ok(argv.includes('show nginx --timestamp=utc -p ActiveEnterTimestamp'));
}));

s("fake systemctl: actions run systemctl <action> <unit>, answer the new state, and fail with systemctl's message", timed(60_000, async () => {
  const started = await t.call('POST', '/api/services/tunnel-server/start');
  assert.equal(started.body, { ok: true, name: 'tunnel-server', action: 'start', service: { name: 'tunnel-server', status: 'active', uptime: '0m' } });
  const stopped = await t.call('POST', '/api/services/auth-portal/stop');
  assert.equal(stopped.body.service, { name: 'auth-portal', status: 'inactive', uptime: '' });
  const failed = await t.call('POST', '/api/services/auth-portal/reload');
  assert.is(failed.status, 500);
  assert.equal(failed.body, { error: 'Failed to reload auth-portal', details: 'systemctl exited with status 1: authelia.service is not active, cannot reload.' });
  const restarted = await t.call('POST', '/api/services/panel/restart');
  assert.is(restarted.body.service.status, 'active');
  assert.is((await t.call('POST', '/api/services/panel/stop')).status, 400);
  assert.is((await t.call('POST', '/api/services/proxy/stop')).status, 400);
  const actions = (await fakes.calls('systemctl')).filter((a) => !['is-active', 'show'].includes(a[0]!));
  assert.equal(actions, [['start', 'chisel'], ['stop', 'authelia'], ['reload', 'authelia'], ['restart', '--no-block', 'relay-panel']]);
}));

s('fake journalctl: the documented command line, 100 backlog lines, then followed lines', timed(60_000, async () => {
  const viewer = await openLogViewer(http.port, 'proxy');
  await viewer.waitForLines(103);
  assert.equal((await fakes.calls('journalctl')).at(-1), ['-u', 'nginx', '-f', '-n', '100', '-o', 'short-iso', '--no-pager']);
  assert.equal(viewer.lines[0], { timestamp: '2026-11-21T12:00:00.000Z', message: 'line 0' });
  assert.equal(viewer.lines[102], { timestamp: '2026-11-21T12:01:42.000Z', message: 'line 102' });
  viewer.close();
  await eventually('journalctl killed', () => followers().length === 0);
}));

s('fake journalctl: 50 concurrent viewers share ONE follow process; none is left after they close', timed(60_000, async () => {
  const viewers = await Promise.all(Array.from({ length: 50 }, () => openLogViewer(http.port, 'tunnel-server')));
  await Promise.all(viewers.map((v) => v.waitForLines(101)));
  assert.is(followers().length, 1);
  assert.is(t.services.serviceControl.followCount(), 1);
  assert.is((await fakes.calls('journalctl')).length, 1);
  for (const v of viewers) {
    // every viewer sees one unbroken run of the journal (a late one starts within the last 100)
    const numbers = v.lines.map((l) => Number(l.message.replace('line ', '')));
    assert.equal(numbers, numbers.map((_, i) => numbers[0]! + i));
  }
  for (const v of viewers) v.close();
  await Promise.all(viewers.map((v) => v.closed));
  await eventually('no journalctl child left', () => followers().length === 0);
}));

s('fake journalctl: 200 open/close cycles leave no child process behind', timed(120_000, async () => {
  for (let i = 0; i < 200; i++) {
    const v = await openLogViewer(http.port, 'auth-portal');
    v.close();
    await v.closed;
  }
  await eventually('no journalctl child left', () => followers().length === 0);
  assert.is(t.services.serviceControl.followCount(), 0);
}));

s('fake journalctl: shutdown kills the follow processes', timed(60_000, async () => {
  const viewers = await Promise.all(['proxy', 'panel'].map((name) => openLogViewer(http.port, name)));
  await Promise.all(viewers.map((v) => v.waitForLines(1)));
  assert.is(followers().length, 2);
  await t.app.close();
  await eventually('no journalctl child left', () => followers().length === 0);
}));

s.run();
