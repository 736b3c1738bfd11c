// The root helper on an installed box (fake systemd; real nginx and openssl): the panel user
// cannot write the vhost directories, and its one way to change them, a `vhosts` request on the
// helper's socket, refuses a bad request without writing anything and turns a good one into a
// vhost nginx serves. nginx loads only root's copies of the TLS material: a certificate link the
// panel user plants toward a root-only key is refused and nginx keeps serving what it served, a
// planted FIFO holds up no answer, and a revocation reaches nginx with the next reload. Then an
// upgrade of a box that reached root through sudo.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID, X509Certificate } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, chown, cp, lchown, lstat, mkdir, open, readdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { dirname, join } from 'node:path';
import { connect } from 'node:tls';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { SystemConfig } from '../../../lib/system/config.ts';
import { OpensslPki } from '../../../lib/system/pki/openssl-pki.ts';
import { createServerCert } from '../../../lib/system/pki/self-signed.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { asPanelUser, install, ipPanel, panelUserArgv, relay, rootRequest, rootSocket, startInstalledBox, step, type InstalledBox } from './installed-box.ts';

let box: InstalledBox;
let system: SystemConfig;
const s = suite('root helper on an installed box (fake systemd)');
const FQDN = 'docs.example.test';
const SITE = `relay-site-${FQDN}.conf`;

const apply = (changes: unknown[]) => rootRequest(box, { action: 'vhosts', changes });
/** the panel user's uid and gid: certbot and the panel make the TLS sources as that user */
let panel: { uid: number; gid: number };

/** Hands a tree to the panel user, links included, as if it had made it. */
async function givePanel(path: string): Promise<void> {
  const st = await lstat(path);
  if (st.isDirectory()) for (const name of await readdir(path)) await givePanel(join(path, name));
  await lchown(path, panel.uid, panel.gid);
}

/** A request to the helper sent by the panel user, not waited for: its answer. */
function rootRequestLater(request: unknown): Promise<{ status: number; stderr: string }> {
  const [binary, args] = panelUserArgv(box, [process.execPath, box.rootRequestScript, rootSocket(box)]);
  const child = spawn(binary, args, { env: { PATH: process.env.PATH } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  child.stdin.end(JSON.stringify(request));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status: status ?? -1, stderr })));
}

/** The SHA-256 fingerprint of the certificate nginx serves for a name on its HTTPS port. */
function servedFingerprint(servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: box.infra.ports.https, servername, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
      socket.end();
    });
    socket.on('error', reject);
  });
}

const fingerprintOf = async (pem: string) => new X509Certificate(await readFile(pem)).fingerprint256;

/** Every entry of both vhost directories with its content or link target. */
async function vhostFiles(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const dir of [system.nginx.sitesAvailable, system.nginx.sitesEnabled]) {
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      out[path] = await readlink(path).catch(() => readFile(path, 'utf8'));
    }
  }
  return out;
}

/** GET over TLS from nginx's HTTPS port, with the name as SNI and Host. */
function fetchSite(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: box.infra.ports.https, path, servername: FQDN, headers: { host: FQDN }, rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

s.before(async () => {
  box = await startInstalledBox();
  system = JSON.parse(await readFile(box.systemFile, 'utf8')) as SystemConfig;
  const run = await install(box);
  assert.is(run.code, 0, `${run.stderr}\n${JSON.stringify(run.events, null, 1)}`);
  const id = (flag: string) => Number(execFileSync('/usr/bin/id', [flag, box.user], { encoding: 'utf8' }));
  panel = { uid: id('-u'), gid: id('-g') };
});
s.after(async () => {
  await box?.close();
});

s('the vhost directories and files are root\'s: the panel user cannot write them', async () => {
  for (const dir of [system.nginx.sitesAvailable, system.nginx.sitesEnabled]) {
    const st = await stat(dir);
    assert.equal([st.uid, st.gid, st.mode & 0o7777], [0, 0, 0o755], dir);
    const r = asPanelUser(box, ['/usr/bin/touch', join(dir, 'relay-evil.conf')]);
    assert.is.not(r.status, 0, dir);
    assert.match(r.stderr, /Permission denied/);
  }
  const ipVhost = join(system.nginx.sitesAvailable, 'relay-ip-panel.conf');
  assert.is((await stat(ipVhost)).uid, 0);
  assert.is.not(asPanelUser(box, ['/usr/bin/tee', '-a', ipVhost], 'access_log /etc/shadow;\n').status, 0);
});

s('a bad request is refused with a clear message and writes nothing', () =>
  withTimeout('refusals', 60_000, async () => {
    const before = await vhostFiles();
    const siteSpec = (over: Record<string, unknown>) => ({ kind: 'site', fqdn: FQDN, root: join(system.sites.root, randomUUID()), spaMode: false, protected: false, ...over });
    const cases: Array<[unknown[], RegExp]> = [
      [[{ op: 'put', spec: siteSpec({ fqdn: 'docs.example.test;include' }), enabled: true }], /^Refused: changes\.0\.spec\.fqdn: must be a lowercase domain name/],
      [[{ op: 'put', spec: siteSpec({ root: '/etc' }), enabled: true }], /^Refused: changes\.0\.spec\.root: must be a site directory/],
      [[{ op: 'put', spec: siteSpec({ root: join(system.sites.root, '..', 'x') }), enabled: true }], /changes\.0\.spec\.root: must be a site directory/],
      [[{ op: 'put', spec: siteSpec({ accessLog: '/etc/cron.d/x' }), enabled: true }], /^Refused: changes\.0\.spec: Unrecognized key: "accessLog"/],
      [[{ op: 'remove', name: '../../../etc/nginx/nginx.conf' }], /^Refused: changes\.0\.name: must be a relay-panel vhost file name/],
      // a good change before a bad one: the whole request is refused
      [[{ op: 'put', spec: { kind: 'app', fqdn: 'ok.example.test', port: 8080 }, enabled: true }, { op: 'disable', name: 'default' }], /changes\.1\.name/],
    ];
    for (const [changes, message] of cases) {
      const r = apply(changes);
      assert.is(r.status, 1, JSON.stringify(changes));
      assert.match(r.stderr, message, JSON.stringify(changes));
    }
    assert.equal(await vhostFiles(), before);
  }),
);

s('a good request becomes a root-owned vhost nginx accepts and serves; remove deletes the file and its link', () =>
  withTimeout('serve and remove', 60_000, async () => {
    const live = join(system.acme.configDir, 'live', FQDN);
    await createServerCert({ openssl: '/usr/bin/openssl', timeoutMs: 20_000, paths: { fullchain: join(live, 'fullchain.pem'), privkey: join(live, 'privkey.pem') },
      commonName: FQDN, subjectAltNames: [`DNS:${FQDN}`], days: 2 });
    await givePanel(live);
    const root = join(system.sites.root, randomUUID());
    await mkdir(root, { recursive: true, mode: 0o755 });
    const marker = `served through the helper ${randomUUID()}`;
    await writeFile(join(root, 'index.html'), marker);

    const put = apply([{ op: 'put', spec: { kind: 'site', fqdn: FQDN, root, spaMode: false, protected: false }, enabled: true }]);
    assert.is(put.status, 0, put.stderr);
    const file = join(system.nginx.sitesAvailable, SITE);
    const st = await stat(file);
    assert.equal([st.uid, st.mode & 0o777], [0, 0o644]);
    // nginx loads root's copy, never the panel user's file
    const copied = join(system.nginx.tlsDir, FQDN, 'fullchain.pem');
    assert.match(await readFile(file, 'utf8'), `ssl_certificate "${copied}";`);
    const copy = await stat(copied);
    assert.equal([copy.uid, copy.mode & 0o777, (await stat(dirname(copied))).mode & 0o777], [0, 0o600, 0o700]);
    assert.is(await readlink(join(system.nginx.sitesEnabled, SITE)), file);
    const page = await fetchSite('/');
    assert.is(page.status, 200);
    assert.is(page.body, marker);

    const removed = apply([{ op: 'remove', name: SITE }]);
    assert.is(removed.status, 0, removed.stderr);
    for (const dir of [system.nginx.sitesAvailable, system.nginx.sitesEnabled]) assert.not.ok((await readdir(dir)).includes(SITE), dir);
    // the site was the only server on the HTTPS port: nginx closes it, or another server answers
    const after = await fetchSite('/').then((r) => r.body, (e: NodeJS.ErrnoException) => e.code);
    assert.is.not(after, marker);
  }),
);

s('a certificate link toward a root-only key is refused, whether planted in live/ or as the archive directory, and nginx keeps serving the certificate it served', () =>
  withTimeout('root-only key', 60_000, async () => {
    const name = 'tls.example.test';
    const le = system.acme.configDir;
    // a lineage as certbot, run as the panel user, leaves it
    const archive = join(le, 'archive', name);
    await createServerCert({ openssl: '/usr/bin/openssl', timeoutMs: 20_000, paths: { fullchain: join(archive, 'fullchain1.pem'), privkey: join(archive, 'privkey1.pem') },
      commonName: name, subjectAltNames: [`DNS:${name}`], days: 2 });
    await mkdir(join(le, 'live', name), { recursive: true });
    for (const file of ['fullchain', 'privkey']) await symlink(`../../archive/${name}/${file}1.pem`, join(le, 'live', name, `${file}.pem`));
    await givePanel(archive);
    await givePanel(join(le, 'live', name));
    for (const dir of ['archive', 'live']) await lchown(join(le, dir), panel.uid, panel.gid);
    const put = [{ op: 'put', spec: { kind: 'app', fqdn: name, port: 8080 }, enabled: true }];
    const first = apply(put);
    assert.is(first.status, 0, first.stderr);
    const served = await fingerprintOf(join(archive, 'fullchain1.pem'));
    assert.is(await servedFingerprint(name), served);
    // root's own key and certificate, which the panel user cannot read
    const rootOnly = join(box.dir, 'root-only');
    await createServerCert({ openssl: '/usr/bin/openssl', timeoutMs: 20_000, paths: { fullchain: join(rootOnly, 'fullchain9.pem'), privkey: join(rootOnly, 'privkey9.pem') },
      commonName: name, subjectAltNames: [`DNS:${name}`], days: 2 });
    await chmod(rootOnly, 0o700);
    assert.is.not(asPanelUser(box, ['/usr/bin/cat', join(rootOnly, 'privkey9.pem')]).status, 0, 'the panel user cannot read it');
    const vhost = join(system.nginx.sitesAvailable, `relay-app-${name}.conf`);
    const before = await readFile(vhost, 'utf8');
    const plant = (target: string, link: string) => assert.is(asPanelUser(box, ['/usr/bin/ln', '-sfn', target, link]).status, 0, link);

    // 1. the live links straight at root's files
    for (const file of ['fullchain', 'privkey']) plant(join(rootOnly, `${file}9.pem`), join(le, 'live', name, `${file}.pem`));
    const linked = apply(put);
    assert.is(linked.status, 1);
    assert.match(linked.stderr, `Refused: ${join(le, 'live', name, 'fullchain.pem')} refused: a link to "${join(rootOnly, 'fullchain9.pem')}", not ../../archive/${name}/fullchain<n>.pem`);
    // 2. certbot's own link text, with archive/<name> a link to root's directory
    for (const file of ['fullchain', 'privkey']) plant(`../../archive/${name}/${file}9.pem`, join(le, 'live', name, `${file}.pem`));
    assert.is(asPanelUser(box, ['/usr/bin/mv', archive, `${archive}.old`]).status, 0, 'the panel user moves its archive aside');
    plant(rootOnly, archive);
    const viaArchive = apply(put);
    assert.is(viaArchive.status, 1);
    assert.match(viaArchive.stderr, `Refused: ${join(archive, 'fullchain9.pem')} refused: owned by uid 0, not ${panel.uid}`);
    // a renewal's deploy hook reloads: the refused source keeps the copy nginx had
    const reload = rootRequest(box, { action: 'nginx-reload' });
    assert.is(reload.status, 0, reload.stderr);
    assert.is(await servedFingerprint(name), served);
    assert.is(await readFile(vhost, 'utf8'), before);
    assert.is(await fingerprintOf(join(system.nginx.tlsDir, name, 'fullchain.pem')), served);
  }),
);

s('a FIFO planted as a certificate: the helper refuses the vhost without blocking on it and answers an nginx-test sent with it; nginx serves on', () =>
  // a helper blocked in open() on the FIFO answers neither request: the timeout fails the test, and
  // only after it does the FIFO get a writer, so the helper serves the later tests
  withTimeout('fifo', 50_000, async () => {
    const name = 'tls.example.test';
    const live = join(system.acme.configDir, 'live', name, 'fullchain.pem');
    const served = await servedFingerprint(name);
    assert.is(asPanelUser(box, ['/usr/bin/rm', '-f', live]).status, 0);
    assert.is(asPanelUser(box, ['/usr/bin/mkfifo', live]).status, 0);
    const afterTimeout = setTimeout(() => void open(live, constants.O_WRONLY | constants.O_NONBLOCK).then((h) => h.close(), () => undefined), 60_000).unref();
    try {
      const [put, test] = await Promise.all([
        rootRequestLater({ action: 'vhosts', changes: [{ op: 'put', spec: { kind: 'app', fqdn: name, port: 8080 }, enabled: true }] }),
        rootRequestLater({ action: 'nginx-test' }),
      ]);
      assert.is(put.status, 1);
      assert.match(put.stderr, `Refused: ${live} refused: a FIFO, not certbot's link or a regular file`);
      assert.is(test.status, 0, test.stderr);
      const alone = await rootRequestLater({ action: 'nginx-test' });
      assert.is(alone.status, 0, alone.stderr);
      assert.is(await servedFingerprint(name), served);
      const removed = apply([{ op: 'remove', name: `relay-app-${name}.conf` }]);
      assert.is(removed.status, 0, removed.stderr);
      assert.not.ok((await readdir(system.nginx.tlsDir)).includes(name), 'a deleted vhost\'s copies are removed');
    } finally {
      clearTimeout(afterTimeout);
    }
  }),
);

s('a revoked client certificate is refused by nginx after the next reload: the CRL is copied again', () =>
  withTimeout('revocation', 60_000, async () => {
    const ipVhost = await readFile(join(system.nginx.sitesAvailable, 'relay-ip-panel.conf'), 'utf8');
    assert.match(ipVhost, `ssl_crl "${join(system.nginx.tlsDir, 'client-ca', 'crl.pem')}";`, 'the panel\'s start moved the IP panel to the copies');
    // the panel's own CA, driven here as the panel would (its files handed back to the panel user)
    const pki = new OpensslPki({ openssl: '/usr/bin/openssl', dir: system.pki.dir, caCommonName: system.pki.caCommonName, clientCertDays: 2, timeoutMs: 20_000 });
    const client = await pki.issueClientCert('agent:tls-copies');
    await givePanel(system.pki.dir);
    const pfx = { pfx: await pki.toPkcs12(client, 'pw'), passphrase: 'pw' };
    assert.is.not((await ipPanel(box, '/api/onboarding/status', pfx)).status, 496, 'a valid client certificate passes nginx');
    await pki.revoke(client.serial);
    await givePanel(system.pki.dir);
    assert.is.not((await ipPanel(box, '/api/onboarding/status', pfx)).status, 496, 'nginx holds the CRL it loaded until a reload');
    const reload = rootRequest(box, { action: 'nginx-reload' });
    assert.is(reload.status, 0, reload.stderr);
    assert.is((await ipPanel(box, '/api/onboarding/status', pfx)).status, 496);
  }),
);

s('a vhost nginx refuses is rolled back by the helper, with nginx\'s words', () =>
  withTimeout('rollback', 60_000, async () => {
    const before = await vhostFiles();
    // no certificate for this name: nginx -t fails on the missing file
    const r = apply([{ op: 'put', spec: { kind: 'app', fqdn: 'nocert.example.test', port: 8080 }, enabled: true }]);
    assert.is(r.status, 1);
    assert.match(r.stderr, /^nginx configuration test failed: .*nocert\.example\.test/m);
    assert.equal(await vhostFiles(), before);
  }),
);

s('a box that reached root through sudo: doctor names the open vhost boundary and the sudo rule; upgrade removes the rule and its launchers, closes the boundary and points the panel at the root helper', () =>
  withTimeout('upgrade from sudo', 90_000, async () => {
    const server = join(box.releaseDir, 'server.mjs');
    const configFile = join(box.prefix, 'etc/relay-panel/config.json');
    const { uid, gid } = await stat(configFile);
    const ipVhost = join(system.nginx.sitesAvailable, 'relay-ip-panel.conf');
    const app = join(box.prefix, 'opt/relay-panel');
    // what a release before the root helper left: group-writable vhosts, sudo rules, launchers, and a configuration naming them
    await chown(system.nginx.sitesAvailable, 0, gid);
    await chmod(system.nginx.sitesAvailable, 0o2775);
    await chown(ipVhost, uid, gid);
    const sudoers = join(box.prefix, 'etc/sudoers.d/relay-panel');
    await mkdir(dirname(sudoers), { recursive: true });
    await writeFile(sudoers, `${box.user} ALL=(root) NOPASSWD: /usr/sbin/nginx -t -q\n`, { mode: 0o440 });
    const legacy = [join(app, 'sudo/nginx'), join(app, 'sudo/systemctl'), join(app, 'sudo/vhosts'), join(app, 'bin/relay-panel-vhosts'), join(app, 'vhost-helper.json')];
    await mkdir(join(app, 'sudo'), { recursive: true });
    for (const file of legacy) await writeFile(file, '#!/bin/sh\n', { mode: 0o755 });
    const config = JSON.parse(await readFile(configFile, 'utf8'));
    const realBinaries = { nginx: config.system.binaries.nginx, systemctl: config.system.binaries.systemctl };
    config.system.binaries = { ...config.system.binaries, nginx: join(app, 'sudo/nginx'), systemctl: join(app, 'sudo/systemctl') };
    config.system.nginx.vhostHelper = join(app, 'sudo/vhosts');
    config.system.rootHelper = null;
    await writeFile(configFile, JSON.stringify(config));

    const before = (await relay(box, server, ['doctor'])).events;
    const vhosts = before.filter((e) => e.step === 'vhosts');
    assert.equal(vhosts.map((e) => e.status), ['failed']);
    assert.match(String(vhosts[0]!.message), `${system.nginx.sitesAvailable} is writable by someone other than root`);
    assert.match(String(vhosts[0]!.message), `${ipVhost} is writable by someone other than root`);
    const rule = before.find((e) => e.step === 'privileges')!;
    assert.is(rule.status, 'failed');
    assert.match(String(rule.message), `a sudo rule for the panel is left from an earlier release: ${sudoers}`);
    assert.match(String(rule.fix), `rm ${sudoers}`);

    const next = join(box.dir, 'release-helper');
    await cp(box.releaseDir, next, { recursive: true });
    await writeFile(join(next, 'VERSION'), `${box.version}-helper\n`);
    const run = await relay(box, join(next, 'server.mjs'), ['upgrade', '--health-timeout', '20', '--no-downloads']);
    assert.is(run.code, 0, JSON.stringify(run.events) + run.stderr);
    assert.is(step(run, 'privileges')!.status, 'changed');
    assert.match(String(step(run, 'privileges')!.message), `removed ${sudoers}`);
    for (const gone of [sudoers, ...legacy, join(app, 'sudo')]) assert.is(await stat(gone).catch(() => null), null, gone);
    const st = await stat(system.nginx.sitesAvailable);
    assert.equal([st.uid, st.gid, st.mode & 0o7777], [0, 0, 0o755]);
    assert.is((await stat(ipVhost)).uid, 0);
    const migrated = await stat(configFile);
    assert.equal([migrated.uid, migrated.mode & 0o777], [uid, 0o600]);
    const after = JSON.parse(await readFile(configFile, 'utf8')).system;
    assert.equal(after.rootHelper, { socket: join(box.prefix, 'run/relay-panel-root.sock'), call: join(app, 'bin/relay-panel-root') });
    assert.is(after.nginx.vhostHelper, null);
    assert.equal({ nginx: after.binaries.nginx, systemctl: after.binaries.systemctl }, realBinaries);
    const doctor = (await relay(box, join(next, 'server.mjs'), ['doctor'])).events;
    for (const check of ['vhosts', 'privileges']) assert.is(doctor.find((e) => e.step === check)!.status, 'done', check);
  }),
);

s.run();
