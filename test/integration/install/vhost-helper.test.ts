// The root vhost helper on an installed box (fake systemd; real sudo, nginx and openssl): the
// panel user cannot write the vhost directories, and its one way to change them, `sudo -n
// <helper> apply` with a JSON request, refuses a bad request without writing anything and turns a
// good one into a vhost nginx serves.
import { randomUUID } from 'node:crypto';
import { chmod, chown, cp, mkdir, readdir, readFile, readlink, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { SystemConfig } from '../../../lib/system/config.ts';
import { createServerCert } from '../../../lib/system/pki/self-signed.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { asPanelUser, install, relay, startInstalledBox, step, type InstalledBox } from './installed-box.ts';

let box: InstalledBox;
let system: SystemConfig;
const s = suite('root vhost helper on an installed box (fake systemd)');
const FQDN = 'docs.example.test';
const SITE = `relay-site-${FQDN}.conf`;

const launcher = () => join(box.prefix, 'opt/relay-panel/sudo/vhosts');
const helper = () => join(box.prefix, 'opt/relay-panel/bin/relay-panel-vhosts');
const apply = (changes: unknown[]) => asPanelUser(box, [launcher(), 'apply'], JSON.stringify({ changes }));

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
});
s.after(async () => {
  await box?.close();
});

s('the vhost directories and files are root\'s: the panel user cannot write them, not even by running the helper itself', async () => {
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
  // without sudo the helper has only the panel user's rights
  const direct = asPanelUser(box, [helper(), 'apply'], JSON.stringify({ changes: [{ op: 'put', spec: { kind: 'app', fqdn: 'x.example.test', port: 8080 }, enabled: true }] }));
  assert.is(direct.status, 1);
  assert.match(direct.stderr, /EACCES|permission denied/i);
  assert.is(await stat(join(system.nginx.sitesAvailable, 'relay-app-x.example.test.conf')).catch(() => null), null);
});

s('sudo grants the helper its one action only: no other action, no other configuration', () => {
  for (const argv of [[helper()], [helper(), 'write'], [helper(), '--helper-config', '/tmp/evil.json', 'apply'], [helper(), 'apply', 'extra']]) {
    const r = asPanelUser(box, ['/usr/bin/sudo', '-n', ...argv], '{}');
    assert.is(r.status, 1, argv.join(' '));
    assert.match(r.stderr, /sudo: a password is required|not allowed/, argv.join(' '));
  }
});

s('a bad request is refused with a clear message and writes nothing', () =>
  withTimeout('refusals', 60_000, async () => {
    const before = await vhostFiles();
    const siteSpec = (over: Record<string, unknown>) => ({ kind: 'site', fqdn: FQDN, root: join(system.sites.root, randomUUID()), spaMode: false, protected: false, ...over });
    const cases: Array<[unknown[], RegExp]> = [
      [[{ op: 'put', spec: siteSpec({ fqdn: 'docs.example.test;include' }), enabled: true }], /Invalid vhost request: changes\.0\.spec\.fqdn: must be a lowercase domain name/],
      [[{ op: 'put', spec: siteSpec({ root: '/etc' }), enabled: true }], /Invalid vhost request: changes\.0\.spec\.root: must be a site directory/],
      [[{ op: 'put', spec: siteSpec({ root: join(system.sites.root, '..', 'x') }), enabled: true }], /changes\.0\.spec\.root: must be a site directory/],
      [[{ op: 'put', spec: siteSpec({ accessLog: '/etc/cron.d/x' }), enabled: true }], /Invalid vhost request: changes\.0\.spec: Unrecognized key: "accessLog"/],
      [[{ op: 'remove', name: '../../../etc/nginx/nginx.conf' }], /Invalid vhost request: changes\.0\.name: must be a relay-panel vhost file name/],
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
    const root = join(system.sites.root, randomUUID());
    await mkdir(root, { recursive: true, mode: 0o755 });
    const marker = `served through the helper ${randomUUID()}`;
    await writeFile(join(root, 'index.html'), marker);

    const put = apply([{ op: 'put', spec: { kind: 'site', fqdn: FQDN, root, spaMode: false, protected: false }, enabled: true }]);
    assert.is(put.status, 0, put.stderr);
    const file = join(system.nginx.sitesAvailable, SITE);
    const st = await stat(file);
    assert.equal([st.uid, st.mode & 0o777], [0, 0o644]);
    assert.match(await readFile(file, 'utf8'), `ssl_certificate "${join(live, 'fullchain.pem')}";`);
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

s('doctor names a vhost boundary that is open; upgrade from a release before the helper closes it and points the panel at the helper', () =>
  withTimeout('upgrade to the helper', 90_000, async () => {
    const server = join(box.releaseDir, 'server.mjs');
    const uid = (await stat(join(box.prefix, 'etc/relay-panel/config.json'))).uid;
    const gid = (await stat(join(box.prefix, 'etc/relay-panel/config.json'))).gid;
    const ipVhost = join(system.nginx.sitesAvailable, 'relay-ip-panel.conf');
    const configFile = join(box.prefix, 'etc/relay-panel/config.json');
    // the layout of a box installed before the helper: group-writable directories, the panel's vhost files and configuration
    await chown(system.nginx.sitesAvailable, 0, gid);
    await chmod(system.nginx.sitesAvailable, 0o2775);
    await chown(ipVhost, uid, gid);
    const config = JSON.parse(await readFile(configFile, 'utf8'));
    config.system.nginx.vhostHelper = null;
    await writeFile(configFile, JSON.stringify(config));

    const before = (await relay(box, server, ['doctor'])).events.filter((e) => e.step === 'vhosts');
    assert.is(before.length, 1);
    assert.is(before[0]!.status, 'failed');
    assert.match(String(before[0]!.message), `${system.nginx.sitesAvailable} is writable by someone other than root`);
    assert.match(String(before[0]!.message), `${ipVhost} is writable by someone other than root`);

    const next = join(box.dir, 'release-helper');
    await cp(box.releaseDir, next, { recursive: true });
    await writeFile(join(next, 'VERSION'), `${box.version}-helper\n`);
    const run = await relay(box, join(next, 'server.mjs'), ['upgrade', '--health-timeout', '20', '--no-downloads']);
    assert.is(run.code, 0, JSON.stringify(run.events) + run.stderr);
    assert.is(step(run, 'privileges')!.status, 'changed');
    const st = await stat(system.nginx.sitesAvailable);
    assert.equal([st.uid, st.gid, st.mode & 0o7777], [0, 0, 0o755]);
    assert.is((await stat(ipVhost)).uid, 0);
    const migrated = await stat(configFile);
    assert.equal([migrated.uid, migrated.mode & 0o777], [uid, 0o600]);
    assert.is(JSON.parse(await readFile(configFile, 'utf8')).system.nginx.vhostHelper, launcher());
    const after = (await relay(box, join(next, 'server.mjs'), ['doctor'])).events.find((e) => e.step === 'vhosts')!;
    assert.is(after.status, 'done', String(after.message));
  }),
);

s.run();
