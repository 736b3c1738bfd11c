import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFile, mkdir, mkdtemp, readFile, rm, stat, symlink, truncate, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyedLock, serialQueue } from '../../../lib/keyed-lock.ts';
import { AuthfileStore } from '../../../lib/system/tunnel-server/authfile.ts';
import { readFromOffset, readOrNull } from '../../../lib/system/common/fs.ts';
import { portalTotpSecret } from '../../../lib/system/auth-portal/portal-files.ts';
import { systemConfig } from '../../../lib/system/config.ts';
import { createSystem, sandboxControls, SystemError, type ServiceAction } from '../../../lib/system/index.ts';
import { createFakeServerCerts } from '../../../lib/system/pki/fake-pki.ts';
import { createServerCert } from '../../../lib/system/pki/self-signed.ts';
import { sandboxPaths } from '../../../lib/system/sandbox-system.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { rejection } from '../../helpers/rejection.ts';
import { timed } from '../../helpers/timeout.ts';

const s = suite('system helpers: errors, files, serial queues, sandbox rules');
let dir = '';

s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-system-common-'));
});
s.after.each(async () => {
  await rm(dir, { recursive: true, force: true });
});

const systemRejection = (p: Promise<unknown>) => rejection(p, SystemError);

s('adapters wrap a missing program with its message: certbot on the host, nginx -t in the sandbox', timed(10_000, async () => {
  const host = createSystem(systemConfig({
    driver: 'host',
    binaries: { certbot: '/nonexistent/certbot' },
    acme: { configDir: join(dir, 'le'), webroot: join(dir, 'www') },
    pki: { dir: join(dir, 'pki') },
  }), { dataDir: dir });
  const issue = await systemRejection(host.certs.issue('app.example.com', 'ops@example.com'));
  assert.is(issue.message, 'certbot could not issue app.example.com: certbot is not installed (/nonexistent/certbot)');
  const renew = await systemRejection(host.certs.renew('app.example.com'));
  assert.is(renew.message, 'certbot could not renew app.example.com: certbot is not installed (/nonexistent/certbot)');

  const sandbox = createSystem(systemConfig({ binaries: { nginx: '/nonexistent/nginx' }, sandbox: { nginxTest: true } }), { dataDir: dir });
  const spec = { kind: 'app' as const, fqdn: 'app.example.com', port: 8001 };
  const test = await systemRejection(sandbox.proxy.apply([{ op: 'put', spec, enabled: true }]));
  assert.is(test.message, 'nginx configuration test failed: nginx is not installed (/nonexistent/nginx)');
  assert.equal(await sandbox.proxy.state(sandbox.proxy.vhostName(spec)), { name: sandbox.proxy.vhostName(spec), written: false, enabled: false });
}));

s('DNS servers are checked with the configuration (the resolver is made on the first lookup)', () => {
  for (const good of ['192.0.2.1', '192.0.2.1:5353', '2001:db8::1', '[2001:db8::1]', '[2001:db8::1]:53', '[192.0.2.1]:53']) {
    assert.equal(systemConfig({ dns: { servers: [good] } }).dns.servers, [good], good);
  }
  for (const bad of ['resolver.example', '192.0.2.1:0', '192.0.2.1:70000', '192.0.2', '[2001:db8::1]:0', '2001:db8::1:53x']) {
    assert.throws(() => systemConfig({ dns: { servers: [bad] } }), /must be an IP address, optionally with a port/, bad);
  }
});

s('readOrNull: null only for a missing file', async () => {
  assert.is(await readOrNull(join(dir, 'none')), null);
  await writeFile(join(dir, 'a'), 'text');
  assert.is(await readOrNull(join(dir, 'a')), 'text');
  await mkdir(join(dir, 'sub'));
  await readOrNull(join(dir, 'sub')).then(() => assert.unreachable(), (e: NodeJS.ErrnoException) => assert.is(e.code, 'EISDIR'));
});

s('readFromOffset: what was appended, and from the start after a truncation', async () => {
  const f = join(dir, 'log');
  await writeFile(f, 'one\n');
  const first = await readFromOffset(f, 0);
  assert.equal(first, { text: 'one\n', from: 0, size: 4 });
  await appendFile(f, 'two\n');
  assert.equal(await readFromOffset(f, first.size), { text: 'two\n', from: 4, size: 8 });
  assert.equal(await readFromOffset(f, 8), { text: '', from: 8, size: 8 });
  assert.equal(await readFromOffset(f, 4, { maxBytes: 2 }), { text: 'tw', from: 4, size: 6 }, 'the rest at the next call');
  await truncate(f, 0);
  await appendFile(f, 'new\n');
  assert.equal(await readFromOffset(f, 8), { text: 'new\n', from: 0, size: 4 });
  const link = join(dir, 'link');
  await symlink(f, link);
  await readFromOffset(link, 0, { rootSafe: true }).then(() => assert.unreachable(), (e: NodeJS.ErrnoException) => assert.is(e.code, 'ELOOP'));
  assert.equal(await readFromOffset(link, 0), { text: 'new\n', from: 0, size: 4 }, 'a link is followed unless rootSafe');
  await readFromOffset(join(dir, 'none'), 0).then(() => assert.unreachable(), (e: NodeJS.ErrnoException) => assert.is(e.code, 'ENOENT'));
});

s('serialQueue runs one task at a time and survives failures; KeyedLock keys are independent', async () => {
  const queue = serialQueue();
  const order: string[] = [];
  const step = (name: string, ms: number, fail = false) => queue(async () => {
    order.push(`${name}:start`);
    await new Promise((r) => setTimeout(r, ms));
    order.push(`${name}:end`);
    if (fail) throw new Error(name);
    return name;
  });
  const results = await Promise.allSettled([step('a', 20, true), step('b', 1), step('c', 5)]);
  assert.equal(order, ['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
  assert.equal(results.map((r) => r.status), ['rejected', 'fulfilled', 'fulfilled']);

  const lock = new KeyedLock();
  const seen: string[] = [];
  let release!: () => void;
  const blocked = lock.run('x', () => new Promise<void>((r) => (release = r)).then(() => void seen.push('x1')));
  await lock.run('y', async () => void seen.push('y'));
  assert.equal(seen, ['y'], 'another key does not wait');
  const next = lock.run('x', async () => void seen.push('x2'));
  release();
  await Promise.all([blocked, next]);
  assert.equal(seen, ['y', 'x1', 'x2']);
});

s('TOTP secrets: base32 only, = padding stripped on host and sandbox alike', async () => {
  assert.is(portalTotpSecret('JBSWY3DPEHPK3PXP'), 'JBSWY3DPEHPK3PXP');
  assert.is(portalTotpSecret('JBSWY3DPEE======'), 'JBSWY3DPEE');
  for (const bad of ['jbswy3dp', 'JBSW1890', '', '====', 'AB=C']) assert.throws(() => portalTotpSecret(bad), /TOTP secret must be base32/);
  const system = createSystem(systemConfig({}), { dataDir: dir });
  await system.authPortal.setTotp('alice', 'JBSWY3DPEE======');
  const totpFile = join(sandboxPaths(dir).authelia, 'totp.json');
  assert.equal(JSON.parse(await readFile(totpFile, 'utf8')), { alice: 'JBSWY3DPEE' });
});

s('sandbox TOTP: a corrupt secrets file is an error, never overwritten', async () => {
  const system = createSystem(systemConfig({}), { dataDir: dir });
  const totpFile = join(sandboxPaths(dir).authelia, 'totp.json');
  await mkdir(sandboxPaths(dir).authelia, { recursive: true });
  await writeFile(totpFile, '{"alice": "JBSW');
  await system.authPortal.setTotp('bob', 'JBSWY3DPEHPK3PXP').then(() => assert.unreachable(), (e: Error) => assert.instance(e, SyntaxError));
  assert.is(await readFile(totpFile, 'utf8'), '{"alice": "JBSW');
});

s('AuthfileStore: a torn users.json is repaired from users.json.saved; the credential is made once', async () => {
  const chisel = join(dir, 'chisel');
  const store = new AuthfileStore(chisel);
  const [c1, c2] = await Promise.all([store.credential(), store.credential()]);
  assert.equal(c1, c2, 'concurrent first calls agree on one credential');
  await store.setAllowedPorts([8002, 8001]);
  const good = await readFile(store.authfile, 'utf8');
  assert.is(await readFile(join(chisel, 'users.json.saved'), 'utf8'), good);
  await writeFile(store.authfile, good.slice(0, 17)); // a crash in the middle of the in-place write
  assert.equal(await store.allowedPorts(), [8001, 8002], 'the saved copy answers');
  await store.ensureAuthfile();
  assert.is(await readFile(store.authfile, 'utf8'), good);
  // a fresh store (a restart) reads the same credential back from its file
  assert.equal(await new AuthfileStore(chisel).credential(), c1);
  // a store with neither file writes an authfile without grants
  const empty = new AuthfileStore(join(dir, 'empty'));
  await empty.ensureAuthfile();
  assert.equal(await empty.allowedPorts(), []);
  await unlink(join(dir, 'empty', 'users.json.saved'));
  assert.equal(await empty.allowedPorts(), [], 'the authfile itself answers without the saved copy');
});

s('AuthfileStore: an unchanged sync writes nothing; a change rewrites both files', async () => {
  const store = new AuthfileStore(join(dir, 'chisel-unchanged'));
  const saved = join(dir, 'chisel-unchanged', 'users.json.saved');
  await store.setAllowedPorts([8001, 8002]);
  // an old mtime, so that a rewrite shows even within the file system's timestamp granularity
  const old = new Date('2001-01-01T00:00:00Z');
  for (const file of [saved, store.authfile]) await utimes(file, old, old);
  const look = async () => Promise.all([saved, store.authfile].map((file) => stat(file).then((st) => ({ ino: st.ino, mtimeMs: st.mtimeMs }))));
  const before = await look();
  await store.setAllowedPorts([8002, 8001, 8001]); // the same grants in another order
  assert.equal(await look(), before, 'same inode and mtime');
  await store.setAllowedPorts([8001]);
  const [savedAfter, liveAfter] = await look();
  assert.is.not(savedAfter!.ino, before[0]!.ino, 'users.json.saved replaced');
  assert.is.not(savedAfter!.mtimeMs, old.getTime(), 'users.json.saved rewritten');
  assert.is.not(liveAfter!.mtimeMs, old.getTime(), 'users.json rewritten');
  assert.equal(await store.allowedPorts(), [8001]);
  assert.equal(JSON.parse(await readFile(store.authfile, 'utf8')), JSON.parse(await readFile(saved, 'utf8')));
});

s('sandbox services: the same action and panel rules as the host', async () => {
  const system = createSystem(systemConfig({}), { dataDir: dir });
  const err = await systemRejection(system.services.control('proxy', 'explode' as ServiceAction));
  assert.is(err.message, "Unknown action 'explode'");
  assert.is((await systemRejection(system.services.control('panel', 'stop'))).message, 'The panel cannot stop itself');
  assert.is((await systemRejection(system.services.status('nope' as never))).message, "Unknown service 'nope'");
  assert.equal(sandboxControls(system).eventsOf('services.control'), []);
});

s('sandbox certificates honour acme.minValidDays like the host', timed(10_000, async () => {
  const clock = new ManualClock(Date.now());
  // the sandbox's certificates as the kit's fakes (the rule is the subject, not openssl's output);
  // the one signed elsewhere below is openssl's, which the fake reads as openssl's would
  const system = createSystem(systemConfig({ acme: { minValidDays: 30 } }), { dataDir: dir, sandboxServerCerts: createFakeServerCerts() });
  await system.certs.issue('app.example.com', 'ops@example.com');
  assert.is(await system.certs.has('app.example.com'), true);
  const sys2 = createSystem(systemConfig({ acme: { minValidDays: 30 } }), { dataDir: dir, clock, sandboxServerCerts: createFakeServerCerts(() => clock.now()) });
  clock.advance(61 * 86_400_000); // 29 days left of 90
  assert.is(await sys2.certs.has('app.example.com'), false);
  assert.is((await sys2.certs.issue('app.example.com', 'ops@example.com')).issued, true, 'reissued before it runs out');
  assert.equal(sandboxControls(sys2).eventsOf('certs.issue').length, 1);
  // a certificate signed elsewhere with 10 days left is not enough either
  const short = sys2.certs.paths('short.example.com');
  await createServerCert({ openssl: '/usr/bin/openssl', timeoutMs: 5000, paths: short, commonName: 'short.example.com', subjectAltNames: [], days: 10 });
  assert.is(await system.certs.has('short.example.com'), false);
}));

s('sandbox events are capped like journals', () => {
  const system = createSystem(systemConfig({}), { dataDir: dir });
  const sb = sandboxControls(system);
  for (let i = 0; i < 1005; i++) sb.record('tick', i);
  assert.is(sb.events.length, 1000);
  assert.is(sb.events[0]!.detail, 5);
  assert.is(sb.events.at(-1)!.detail, 1004);
});

s.run();
