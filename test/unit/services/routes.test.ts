import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpus } from 'node:os';
import { STATS_FAILED } from '../../../lib/service-control/stats-feed.ts';
import { PANEL_STOP_REFUSED, stopRefused } from '../../../lib/service-control/service-control.ts';
import { sandboxControls, type ServiceAction, type ServiceName } from '../../../lib/system/index.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { deferred, type Deferred } from '../../helpers/deferred.ts';

const s = suite('services and system routes');
let t: TestApp;
s.before.each(async () => {
  t = await createTestApp();
  await t.completeOnboarding();
});
s.after.each(async () => {
  await t.close();
});

const sandbox = () => sandboxControls(t.services.system);

s('GET /api/services: the four services in order, with status and uptime', async () => {
  sandbox().setServiceStatus('auth-portal', 'failed');
  const { status, body } = await t.call('GET', '/api/services');
  assert.is(status, 200);
  assert.equal(body, {
    services: [
      { name: 'proxy', status: 'active', uptime: '0m' },
      { name: 'tunnel-server', status: 'inactive', uptime: '' },
      { name: 'auth-portal', status: 'failed', uptime: '' },
      { name: 'panel', status: 'active', uptime: '0m' },
    ],
  });
});

s('GET /api/services: a status that cannot be read is unknown, the others still answer', async () => {
  sandbox().failNext('services.status', 'systemctl: no bus');
  const { status, body } = await t.call('GET', '/api/services');
  assert.is(status, 200);
  assert.equal(body.services.map((x: { status: string }) => x.status), ['unknown', 'inactive', 'inactive', 'active']);
});

s('concurrent listings share one round of status calls', async () => {
  const adapter = t.services.system.services;
  const original = adapter.status.bind(adapter);
  let calls = 0;
  const gate = deferred();
  adapter.status = async (name) => {
    calls++;
    await gate.promise;
    return original(name);
  };
  const first = t.call('GET', '/api/services');
  await new Promise((r) => setTimeout(r, 20));
  const second = t.call('GET', '/api/services');
  await new Promise((r) => setTimeout(r, 20));
  gate.resolve();
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.body, b.body);
  assert.is(calls, 4);
  await t.call('GET', '/api/services');
  assert.is(calls, 8, 'a later listing asks again');
});

s('POST start/stop/restart/reload answer the new status', async () => {
  let r = await t.call('POST', '/api/services/tunnel-server/start');
  assert.is(r.status, 200);
  assert.equal(r.body, { ok: true, name: 'tunnel-server', action: 'start', service: { name: 'tunnel-server', status: 'active', uptime: '0m' } });
  r = await t.call('POST', '/api/services/tunnel-server/reload');
  assert.equal(r.body.service.status, 'active');
  r = await t.call('POST', '/api/services/tunnel-server/stop');
  assert.equal(r.body.service, { name: 'tunnel-server', status: 'inactive', uptime: '' });
  r = await t.call('POST', '/api/services/panel/restart');
  assert.equal(r.body.service, { name: 'panel', status: 'active', uptime: '0m' });
  assert.equal(
    sandbox().eventsOf('services.control').map((e) => e.detail),
    [
      { name: 'tunnel-server', action: 'start' },
      { name: 'tunnel-server', action: 'reload' },
      { name: 'tunnel-server', action: 'stop' },
      { name: 'panel', action: 'restart' },
    ],
  );
});

s('the panel cannot be stopped: 400 with a clear message, nothing run', async () => {
  const r = await t.call('POST', '/api/services/panel/stop');
  assert.is(r.status, 400);
  assert.equal(r.body, { error: PANEL_STOP_REFUSED });
  assert.equal(sandbox().eventsOf('services.control'), []);
});

s('the proxy cannot be stopped either (the panel is reached through it): 400, nothing run; restart and reload still run', async () => {
  const stop = await t.call('POST', '/api/services/proxy/stop');
  assert.is(stop.status, 400);
  assert.equal(stop.body, { error: stopRefused('proxy') });
  assert.match(stop.body.error, /^The proxy service cannot be stopped/);
  assert.equal(sandbox().eventsOf('services.control'), []);
  assert.is((await t.call('POST', '/api/services/proxy/restart')).status, 200);
  assert.is((await t.call('POST', '/api/services/proxy/reload')).status, 200);
  assert.equal(sandbox().eventsOf('services.control').map((e) => e.detail), [
    { name: 'proxy', action: 'restart' },
    { name: 'proxy', action: 'reload' },
  ]);
});

s('unknown service or action: 400 Validation failed naming the parameter and the allowed values', async () => {
  const name = await t.call('POST', '/api/services/postgres/restart');
  assert.is(name.status, 400);
  assert.is(name.body.error, 'Validation failed');
  assert.equal(name.body.details.issues.map((i: { path: string }) => i.path), ['name']);
  assert.match(name.body.details.issues[0].message, 'proxy, tunnel-server, auth-portal, panel');
  const action = await t.call('POST', '/api/services/proxy/enable');
  assert.is(action.status, 400);
  assert.equal(action.body.details.issues.map((i: { path: string }) => i.path), ['action']);
  assert.match(action.body.details.issues[0].message, 'start, stop, restart, reload');
  assert.equal(sandbox().eventsOf('services.control'), []);
});

s("a failed action: 500 Failed to <action> <name> carrying the program's message", async () => {
  const notActive = await t.call('POST', '/api/services/auth-portal/reload');
  assert.is(notActive.status, 500);
  assert.equal(notActive.body, { error: 'Failed to reload auth-portal', details: 'authelia is not active, cannot reload' });
  sandbox().failNext('services.control', 'Job for nginx.service failed because the control process exited with error code.');
  const failed = await t.call('POST', '/api/services/proxy/restart');
  assert.equal(failed.body, { error: 'Failed to restart proxy', details: 'Job for nginx.service failed because the control process exited with error code.' });
});

s('two actions on one service run one after the other; different services run side by side', async () => {
  const adapter = t.services.system.services;
  const original = adapter.control.bind(adapter);
  const trace: string[] = [];
  const gates = new Map<string, Deferred<void>>();
  adapter.control = async (name: ServiceName, action: ServiceAction) => {
    trace.push(`begin ${name} ${action}`);
    const gate = deferred();
    gates.set(`${name} ${action}`, gate);
    await gate.promise;
    await original(name, action);
    trace.push(`end ${name} ${action}`);
  };
  const first = t.call('POST', '/api/services/auth-portal/stop');
  const second = t.call('POST', '/api/services/auth-portal/start');
  const other = t.call('POST', '/api/services/tunnel-server/start');
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(trace, ['begin auth-portal stop', 'begin tunnel-server start'], 'the second auth-portal action waits; another service does not');
  gates.get('auth-portal stop')!.resolve();
  assert.equal((await first).body.service.status, 'inactive', 'each answer is the state its own action left');
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(trace.slice(-2), ['end auth-portal stop', 'begin auth-portal start']);
  gates.get('auth-portal start')!.resolve();
  gates.get('tunnel-server start')!.resolve();
  assert.equal((await second).body.service.status, 'active');
  assert.equal((await other).body.service.status, 'active');
});

s('a failed action does not block the next one on that service', async () => {
  sandbox().failNext('services.control', 'boom');
  assert.is((await t.call('POST', '/api/services/proxy/restart')).status, 500);
  assert.is((await t.call('POST', '/api/services/proxy/restart')).status, 200);
});

s('GET /api/system/stats: cpu, memory, disk and uptime as the spec lists them', async () => {
  const { status, body, response } = await t.call('GET', '/api/system/stats');
  assert.is(status, 200);
  assert.match(response.headers.get('content-type') ?? '', 'application/json');
  assert.equal(Object.keys(body).sort(), ['cpu', 'disk', 'memory', 'uptime']);
  assert.ok(body.cpu.usage >= 0 && body.cpu.usage <= 100);
  assert.is(body.cpu.cores, cpus().length);
  for (const part of [body.memory, body.disk]) {
    assert.ok(part.total > 0);
    assert.ok(part.used >= 0 && part.free >= 0 && part.used <= part.total);
  }
  assert.ok(Number.isInteger(body.uptime) && body.uptime > 0);
});

s('GET /api/system/stats: served from one measurement within 2 s', async () => {
  const bodies = await Promise.all(Array.from({ length: 5 }, () => t.request('GET', '/api/system/stats').then((r) => r.text())));
  assert.is(new Set(bodies).size, 1);
});

s('GET /api/system/stats: a failed measurement is 500 with the reason', async () => {
  sandbox().failNext('stats.snapshot', 'cannot read /proc/stat');
  const r = await t.call('GET', '/api/system/stats');
  assert.equal(r.body, { error: STATS_FAILED, details: 'cannot read /proc/stat' });
  assert.is(r.status, 500);
  assert.is((await t.call('GET', '/api/system/stats')).status, 200);
});

s('management gate: 503 before onboarding completes on all four routes', async () => {
  await t.services.config.update({ onboarding: { status: 'FRESH' } });
  for (const [method, path] of [
    ['GET', '/api/services'],
    ['POST', '/api/services/proxy/restart'],
    ['GET', '/api/services/proxy/logs'],
    ['GET', '/api/system/stats'],
  ] as const) {
    const r = await t.call(method, path);
    assert.is(r.status, 503, path);
    assert.is(r.body.error, 'Onboarding not complete');
  }
});

s('agents: services:read lists, services:write acts, system:read reads stats; each alone is not enough', async () => {
  await t.addAgent('reader', ['services:read'], [], 'A1');
  await t.addAgent('writer', ['services:write'], [], 'A2');
  await t.addAgent('watcher', ['system:read'], [], 'A3');
  const as = (agent: string, serial: string) => ({ as: { agent, serial } });
  assert.is((await t.call('GET', '/api/services', as('reader', 'A1'))).status, 200);
  assert.equal((await t.call('GET', '/api/services', as('writer', 'A2'))).body, { error: 'Insufficient certificate capability' });
  assert.is((await t.call('POST', '/api/services/proxy/reload', as('writer', 'A2'))).status, 200);
  assert.is((await t.call('POST', '/api/services/proxy/reload', as('reader', 'A1'))).status, 403);
  assert.is((await t.call('GET', '/api/system/stats', as('watcher', 'A3'))).status, 200);
  assert.is((await t.call('GET', '/api/system/stats', as('reader', 'A1'))).status, 403);
  assert.is((await t.call('GET', '/api/services', { as: 'none' })).status, 403);
});

s.run();
