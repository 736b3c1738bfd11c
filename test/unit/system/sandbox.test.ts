import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, stat, readlink, appendFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { createSystem, hostIpResolver, sandboxControls, systemConfig, SystemError, type System } from '../../../lib/system/index.ts';
import { sandboxPaths } from '../../../lib/system/sandbox-system.ts';
import { createFakePki, createFakeServerCerts } from '../../../lib/system/pki/fake-pki.ts';
import { timed } from '../../helpers/timeout.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { createLogger } from '../../../lib/log.ts';

const s = suite('sandbox system');
let dataDir = '';
let system: System;
let current = { domain: 'example.com' as string | null, ip: '203.0.113.7' };

s.before.each(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'relay-sandbox-'));
  current = { domain: 'example.com', ip: '203.0.113.7' };
  // the fake PKI and server certificates: only the first case is about what openssl makes
  system = createSystem(systemConfig({}), { dataDir, sandboxDns: hostIpResolver(() => current), sandboxPki: createFakePki(join(dataDir, 'fake-pki')), sandboxServerCerts: createFakeServerCerts() });
});
s.after.each(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const hash = '$2b$12$' + 'a'.repeat(53);

s('certificates: issued once by the local CA, then reused while valid', timed(10_000, async () => {
  // the sandbox's own openssl CA, as `npm start` has it
  const system = createSystem(systemConfig({}), { dataDir, sandboxDns: hostIpResolver(() => current) });
  const first = await system.certs.issue('app.example.com', 'ops@example.com');
  assert.is(first.issued, true);
  const cert = new X509Certificate(await readFile(first.paths.fullchain, 'utf8'));
  assert.match(cert.subjectAltName ?? '', 'DNS:app.example.com');
  assert.is(((await stat(first.paths.privkey)).mode & 0o777), 0o600);
  const again = await system.certs.issue('app.example.com', 'ops@example.com');
  assert.is(again.issued, false);
  assert.is(await system.certs.has('app.example.com'), true);
  assert.is(await system.certs.has('other.example.com'), false);
  const list = await system.certs.list();
  assert.equal(list.map((c) => c.domain), ['app.example.com']);
  assert.ok(list[0]!.daysLeft >= 88 && list[0]!.daysLeft <= 90);
  assert.equal(sandboxControls(system).eventsOf('certs.issue').length, 1);
}));

s('proxy: put writes the rendered vhost and links it; disable keeps the file; remove deletes it', timed(10_000, async () => {
  await system.certs.issue('app.example.com', 'ops@example.com');
  const spec = { kind: 'app' as const, fqdn: 'app.example.com', port: 8001 };
  const name = system.proxy.vhostName(spec);
  await system.proxy.apply([{ op: 'put', spec, enabled: true }]);
  const p = sandboxPaths(dataDir);
  const text = await readFile(join(p.sitesAvailable, name), 'utf8');
  assert.match(text, 'proxy_pass http://127.0.0.1:8001;');
  assert.is(await readlink(join(p.sitesEnabled, name)), join(p.sitesAvailable, name));
  assert.equal(await system.proxy.state(name), { name, written: true, enabled: true });
  await system.proxy.apply([{ op: 'disable', name }]);
  assert.equal(await system.proxy.state(name), { name, written: true, enabled: false });
  await system.proxy.apply([{ op: 'enable', name }]);
  assert.equal(await system.proxy.state(name), { name, written: true, enabled: true });
  await system.proxy.apply([{ op: 'remove', name }]);
  assert.equal(await system.proxy.state(name), { name, written: false, enabled: false });
  assert.ok(sandboxControls(system).eventsOf('proxy.reload').length >= 4);
}));

s('proxy: an injected nginx -t failure restores the previous vhost', timed(10_000, async () => {
  await system.certs.issue('app.example.com', 'ops@example.com');
  const before = { kind: 'app' as const, fqdn: 'app.example.com', port: 8001 };
  const name = system.proxy.vhostName(before);
  await system.proxy.apply([{ op: 'put', spec: before, enabled: true }]);
  const original = await readFile(join(sandboxPaths(dataDir).sitesAvailable, name), 'utf8');
  sandboxControls(system).failNext('proxy.test', 'nginx: [emerg] simulated');
  let error: unknown;
  try {
    await system.proxy.apply([{ op: 'put', spec: { ...before, port: 9999 }, enabled: false }]);
  } catch (e) {
    error = e;
  }
  assert.instance(error, SystemError);
  assert.is((error as SystemError).message, 'nginx: [emerg] simulated');
  assert.is(await readFile(join(sandboxPaths(dataDir).sitesAvailable, name), 'utf8'), original);
  assert.equal(await system.proxy.state(name), { name, written: true, enabled: true });
  // a new vhost that fails the test leaves nothing behind
  sandboxControls(system).failNext('proxy.test');
  await system.certs.issue('new.example.com', 'ops@example.com');
  const fresh = { kind: 'app' as const, fqdn: 'new.example.com', port: 8002 };
  await system.proxy.apply([{ op: 'put', spec: fresh, enabled: true }]).catch(() => {});
  assert.equal(await system.proxy.state(system.proxy.vhostName(fresh)), { name: system.proxy.vhostName(fresh), written: false, enabled: false });
}));

s('failNext: any adapter method fails once, then works', timed(10_000, async () => {
  const sb = sandboxControls(system);
  sb.failNext('certs.issue', 'boom');
  await system.certs.issue('a.example.com', 'ops@example.com').then(
    () => assert.unreachable('should fail'),
    (e: SystemError) => {
      assert.is(e.message, 'boom');
      assert.is(e.code, 'injected');
    },
  );
  assert.is((await system.certs.issue('a.example.com', 'ops@example.com')).issued, true);
  sb.failNext('tunnelServer.setAllowedPorts', 'chisel down');
  await system.tunnelServer.setAllowedPorts([8001]).then(() => assert.unreachable(), (e: Error) => assert.is(e.message, 'chisel down'));
  sb.failNext('authPortal.restart', 'no restart', 2);
  await system.authPortal.restart().catch(() => {});
  await system.authPortal.restart().then(() => assert.unreachable(), (e: Error) => assert.is(e.message, 'no restart'));
  await system.authPortal.restart();
  assert.is(sb.eventsOf('authPortal.restart').length, 1);
  sb.failNext('services.follow', 'no journal');
  assert.throws(() => system.services.follow('proxy', 10), /no journal/);
}));

s('dns: host ip for the domain and its subdomains; records override; [] does not resolve', async () => {
  assert.equal(await system.dns.resolve4('example.com'), ['203.0.113.7']);
  assert.equal(await system.dns.resolve4('x.y.example.com'), ['203.0.113.7']);
  assert.equal(await system.dns.resolve4('example.org'), []);
  const sb = sandboxControls(system);
  sb.setDns('bad.example.com', []);
  assert.equal(await system.dns.resolve4('bad.example.com'), []);
  sb.setDns('example.com', ['198.51.100.1']);
  assert.equal(await system.dns.resolve4('www.example.com'), ['198.51.100.1']);
  sb.setDns('example.com', null);
  current = { domain: null, ip: '203.0.113.7' };
  assert.equal(await system.dns.resolve4('example.com'), []);
});

s('dns: records from the configuration', async () => {
  const sys = createSystem(systemConfig({ sandbox: { dns: { 'custom.test': ['192.0.2.9'] } } }), { dataDir });
  assert.equal(await sys.dns.resolve4('www.custom.test'), ['192.0.2.9']);
  assert.equal(await sys.dns.resolve4('example.com'), []);
});

s('tunnel server: authfile grants exactly the reverse ports, credential stable', async () => {
  await system.tunnelServer.install();
  const cred = await system.tunnelServer.credential();
  await system.tunnelServer.setAllowedPorts([8002, 8001, 8001]);
  const text = await readFile(join(sandboxPaths(dataDir).chisel, 'users.json'), 'utf8');
  assert.equal(JSON.parse(text), { [`${cred.user}:${cred.password}`]: ['^R:127\\.0\\.0\\.1:8001$', '^R:127\\.0\\.0\\.1:8002$'] });
  assert.equal(await system.tunnelServer.allowedPorts(), [8001, 8002]);
  assert.equal(await system.tunnelServer.credential(), cred);
  assert.is((await system.services.status('tunnel-server')).status, 'active');
});

s('auth portal: users round-trip, secrets kept across installs, TOTP and restarts recorded', async () => {
  const users = [{ username: 'admin', displayname: 'Admin', email: 'a@example.com', groups: ['admins'], password: hash }];
  await system.authPortal.install({ domain: 'example.com', users });
  const dir = sandboxPaths(dataDir).authelia;
  const secrets1 = await readFile(join(dir, 'secrets.json'), 'utf8');
  await system.authPortal.install({ domain: 'example.com', users });
  assert.is(await readFile(join(dir, 'secrets.json'), 'utf8'), secrets1);
  assert.is(((await stat(join(dir, 'secrets.json'))).mode & 0o777), 0o600);
  assert.equal(await system.authPortal.readUsers(), users);
  // Authelia's rule (assertSomeUser): the portal is never given a users database without users
  await system.authPortal.writeUsers([]).then(() => assert.unreachable('written'), (e: Error) => assert.match(e.message, /at least one user/));
  assert.equal(await system.authPortal.readUsers(), users, 'the refused write changed nothing');
  // a database emptied by hand: the sandbox's start plays Authelia's refusal, the unit fails
  await writeFile(join(dir, 'users_database.yml'), 'users: {}\n');
  await system.authPortal.restart();
  assert.is((await system.services.status('auth-portal')).status, 'failed');
  await system.authPortal.writeUsers(users);
  await system.authPortal.restart();
  assert.is((await system.services.status('auth-portal')).status, 'active');
  await system.authPortal.setTotp('admin', 'JBSWY3DPEHPK3PXP');
  await system.authPortal.setAccessRules([{ fqdn: 'docs.example.com', allowedUsers: ['alice'] }]);
  const config = JSON.parse((await readFile(join(dir, 'configuration.yml'), 'utf8')).replace(/^#.*\n/, ''));
  assert.equal(config.access_control.rules[0], { domain: ['docs.example.com'], policy: 'two_factor', subject: ['user:alice', 'group:admins'] });
  assert.is(sandboxControls(system).eventsOf('authPortal.setTotp').length, 1);
});

s('services: simulated states, panel always active and cannot stop, journal follow', timed(5000, async () => {
  assert.is((await system.services.status('panel')).status, 'active');
  assert.is((await system.services.status('auth-portal')).status, 'inactive');
  await system.services.control('proxy', 'stop');
  assert.equal(await system.services.status('proxy'), { name: 'proxy', status: 'inactive', uptime: '' });
  await system.services.control('panel', 'stop').then(() => assert.unreachable(), (e: Error) => assert.instance(e, SystemError));
  await system.services.control('proxy', 'start');
  const follow = system.services.follow('proxy', 1);
  const it = follow[Symbol.asyncIterator]();
  const first = await it.next();
  assert.match(first.value.message, 'start');
  sandboxControls(system).appendLog('proxy', 'live line');
  assert.is((await it.next()).value.message, 'live line');
  follow.close();
  assert.is((await it.next()).done, true);
  assert.is(sandboxControls(system).listenerCount('proxy'), 0);
}));

s('services: the panel journal follows the configured log file', timed(5000, async () => {
  const logFile = join(dataDir, 'panel.log');
  await writeFile(logFile, '2026-01-01T00:00:00.000Z old\n2026-01-01T00:00:01.000Z started\n');
  // the file is polled on the system's clock: one poll's interval moved by hand
  const clock = new ManualClock(Date.now());
  const sys = createSystem(systemConfig({ sandbox: { panelLogFile: logFile } }), { dataDir, clock });
  const follow = sys.services.follow('panel', 1);
  const it = follow[Symbol.asyncIterator]();
  assert.equal((await it.next()).value, { timestamp: '2026-01-01T00:00:01.000Z', message: 'started' });
  await appendFile(logFile, 'appended\n');
  clock.advance(250);
  const appended = (await it.next()).value;
  assert.equal(appended, { timestamp: new Date(clock.now()).toISOString(), message: 'appended' });
  follow.close();
}));

s('services: without a log file the panel journal is the panel\'s own logger', timed(5000, async () => {
  const log = createLogger({ write: () => {} });
  log.info('listening on http://127.0.0.1:3100');
  log.warn('slow disk');
  const sys = createSystem(systemConfig({}), { dataDir, panelLog: log });
  const follow = sys.services.follow('panel', 1);
  const it = follow[Symbol.asyncIterator]();
  assert.is((await it.next()).value.message, 'WARN slow disk');
  log.error('boom');
  const live = (await it.next()).value;
  assert.is(live.message, 'ERROR boom');
  assert.match(live.timestamp, /^\d{4}-\d{2}-\d{2}T/);
  follow.close();
}));

s('services: made-up lines for an active unit while it is followed, none once the follow ends', timed(5000, async () => {
  // the lines come on the system's clock: a manual one moves them, no real time passes
  const clock = new ManualClock(Date.now());
  const sys = createSystem(systemConfig({}), { dataDir, madeUpLogsEveryMs: 20, clock });
  const sb = sandboxControls(sys);
  sb.appendLog('proxy', 'before the follow');
  const follow = sys.services.follow('proxy', 0); // no backlog: only new lines
  const it = follow[Symbol.asyncIterator]();
  assert.match((await it.next()).value.message, 'HTTP/1.1');
  clock.advance(20);
  assert.match((await it.next()).value.message, 'HTTP/1.1');
  follow.close();
  const kept = sb.journal('proxy', 1000).length;
  clock.advance(80);
  assert.is(sb.journal('proxy', 1000).length, kept, 'the feed stopped with the follow');
  const idle = sys.services.follow('tunnel-server', 0); // inactive in the sandbox: nothing made up
  clock.advance(60);
  assert.is(sb.journal('tunnel-server', 1000).length, 0);
  idle.close();
}));

s('stats: real numbers from /proc, cached for 2 s', timed(5000, async () => {
  let now = 1_000_000;
  const { createStats } = await import('../../../lib/system/stats/stats.ts');
  const stats = createStats({ now: () => now });
  const a = await stats.snapshot();
  assert.ok(a.cpu.cores >= 1 && a.cpu.usage >= 0 && a.cpu.usage <= 100);
  assert.ok(a.memory.total > 0 && a.memory.used + a.memory.free === a.memory.total);
  assert.ok(a.disk.total > 0 && a.disk.free <= a.disk.total);
  assert.ok(a.uptime > 0);
  now += 1500;
  assert.is(await stats.snapshot(), a, 'served from the cache');
  now += 600;
  assert.is.not(await stats.snapshot(), a, 'measured again after 2 s');
}));

s.run();
