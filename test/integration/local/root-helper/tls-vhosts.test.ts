// The root helper's vhosts and nginx actions with root's TLS copies (lib/root-helper/apply.ts,
// dispatch.ts): its templates name only the copies; a change with a refused source writes nothing;
// nginx's test and reload copy again first and keep a refused source's previous copy (a refusal
// when it is the client CA's: its old CRL leaves a revocation out); a planted FIFO never holds up
// an answer; a root panel (runAs null) has vhosts naming its own files and no copies. /bin/true and /bin/false play nginx (the real one:
// test/integration/install/root-helper.test.ts).
import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, mkdtemp, open, readdir, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyVhostChanges, helperTemplateContext, refreshVhostSpecs } from '../../../../lib/root-helper/apply.ts';
import { createDispatcher } from '../../../../lib/root-helper/dispatch.ts';
import { entriesOfVhost } from '../../../../lib/root-helper/tls-entries.ts';
import { routesDirOf, systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import { createHostCerts } from '../../../../lib/system/certs/host.ts';
import { createHostProxy } from '../../../../lib/system/proxy/host.ts';
import { directRootActions } from '../../../../lib/system/root/root-actions.ts';
import { systemPki } from '../../../../lib/system/pki/openssl-pki.ts';
import { renderVhost, vhostName } from '../../../../lib/system/proxy/templates.ts';
import type { CertPaths, VhostSpec } from '../../../../lib/system/types.ts';
import { withTimeout } from '../../../helpers/timeout.ts';
import { certPairs } from '../../../helpers/cert-pairs.ts';
import { certbotLineage, helperVhostConfig, SITES } from './fixtures.ts';

const A = 'a.example.test';
const NONE = { exact: [], prefix: [] };
const appSpec = (fqdn: string): VhostSpec => ({ kind: 'app', fqdn, port: 8080 });

interface Ctx { dir: string; config: SystemConfig; log: string[] }
const s = suite<Ctx>('root helper vhosts with TLS copies', { dir: '', config: systemConfig(), log: [] });

let fixtures = '';
let pairs: Record<'one' | 'two', CertPaths>;
s.before(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'relay-tls-vhost-fixtures-'));
  pairs = await certPairs(fixtures, { one: A, two: A });
});
s.after(() => rm(fixtures, { recursive: true, force: true }));

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-tls-vhosts-'));
  ctx.log = [];
  ctx.config = helperVhostConfig(ctx.dir);
});
s.after.each(({ dir }) => rm(dir, { recursive: true, force: true }));

/** What the panel's user made for the IP panel: its self-signed certificate, the client CA and its CRL. */
async function ipPanelMaterial(c: SystemConfig, pair: CertPaths): Promise<{ ca: string; crl: string }> {
  await mkdir(c.nginx.selfSignedDir, { recursive: true });
  await copyFile(pair.fullchain, join(c.nginx.selfSignedDir, 'ip-panel.pem'));
  await copyFile(pair.privkey, join(c.nginx.selfSignedDir, 'ip-panel.key'));
  const made = await systemPki(c, c.pki.dir).ensureCa();
  return { ca: made.caPath, crl: made.crlPath };
}

const listed = (dir: string) => readdir(dir).catch(() => [] as string[]);
const message = (p: Promise<unknown>) => p.then(() => 'ok', (e: Error) => e.message);

s('the helper\'s vhosts name root\'s copies only, exactly the entries their file name stands for; no panel file', ({ config }) => {
  const context = helperTemplateContext(config, NONE);
  const specs: VhostSpec[] = [{ kind: 'ip-panel' }, { kind: 'default' }, { kind: 'panel', fqdn: A }, { kind: 'auth-portal', fqdn: A },
    { kind: 'tunnel-server', fqdn: A }, appSpec(A), { kind: 'site', fqdn: A, root: `${SITES}/x`, spaMode: false, protected: true },
    { kind: 'site', fqdn: A, root: `${SITES}/x`, spaMode: false, protected: true, closed: true }];
  for (const spec of specs) {
    const text = renderVhost(spec, context);
    const loaded = [...text.matchAll(/^\s*ssl_(?:certificate|certificate_key|client_certificate|crl) "([^"]+)";/gm)].map((m) => m[1]!);
    assert.ok(loaded.length >= 2, spec.kind);
    const entries = new Set(loaded.map((path) => {
      assert.ok(path.startsWith(`${config.nginx.tlsDir}/`), `${spec.kind}: ${path}`);
      return path.slice(config.nginx.tlsDir.length + 1).split('/')[0]!;
    }));
    assert.equal([...entries].sort(), entriesOfVhost(vhostName(spec)).sort(), spec.kind);
    for (const panelOwned of [config.acme.configDir, config.nginx.selfSignedDir, config.pki.dir]) assert.not.match(text, panelOwned, spec.kind);
  }
});

s('a change with a refused source is refused whole: no vhost, no link, no copy', async ({ config }) => {
  await certbotLineage(config, 'ok.example.test', pairs.one);
  await certbotLineage(config, A, pairs.one);
  await unlink(join(config.acme.configDir, 'live', A, 'fullchain.pem'));
  await symlink(pairs.two.fullchain, join(config.acme.configDir, 'live', A, 'fullchain.pem'));
  const said = await message(applyVhostChanges(config, NONE, [
    { op: 'put', spec: appSpec('ok.example.test'), enabled: true },
    { op: 'put', spec: appSpec(A), enabled: false },
  ]));
  assert.is(said, `Refused: ${join(config.acme.configDir, 'live', A, 'fullchain.pem')} refused: a link to ${JSON.stringify(pairs.two.fullchain)}, not ../../archive/${A}/fullchain<n>.pem`);
  assert.equal([await listed(config.nginx.sitesAvailable), await listed(config.nginx.sitesEnabled), await listed(config.nginx.tlsDir)], [[], [], []]);
});

s('a put copies before it writes; an enable copies what a put before the certificate could not; a remove takes the copies away', async ({ config }) => {
  const name = vhostName(appSpec(A));
  await applyVhostChanges(config, NONE, [{ op: 'put', spec: appSpec(A), enabled: false }]);
  assert.equal(await listed(config.nginx.tlsDir), [], 'no certificate yet: nothing to copy');
  await certbotLineage(config, A, pairs.one);
  await applyVhostChanges(config, NONE, [{ op: 'enable', name }]);
  assert.is(await readFile(join(config.nginx.tlsDir, A, 'privkey.pem'), 'utf8'), await readFile(pairs.one.privkey, 'utf8'));
  assert.match(await readFile(join(config.nginx.sitesAvailable, name), 'utf8'), `ssl_certificate_key "${join(config.nginx.tlsDir, A, 'privkey.pem')}";`);
  await applyVhostChanges(config, NONE, [{ op: 'disable', name }]);
  assert.equal(await listed(config.nginx.tlsDir), [A], 'a disabled vhost keeps its copies');
  await applyVhostChanges(config, NONE, [{ op: 'remove', name }]);
  assert.equal(await listed(config.nginx.tlsDir), []);
});

s('the shared tunnels\' server loads root\'s copy of the wildcard lineage; a route loads nothing and is linked in the routes directory; enabling it by name links it there again', async ({ config }) => {
  const domain = 'example.test';
  await certbotLineage(config, domain, pairs.one);
  const shared: VhostSpec = { kind: 'app', fqdn: A, port: 8080, cert: domain, shared: true };
  await applyVhostChanges(config, NONE, [{ op: 'put', spec: { kind: 'tunnels', fqdn: domain }, enabled: true }, { op: 'put', spec: shared, enabled: true }]);
  assert.equal(await listed(config.nginx.tlsDir), [domain], 'the lineage is copied for the shared server alone');
  const server = await readFile(join(config.nginx.sitesAvailable, `relay-tunnels-${domain}.conf`), 'utf8');
  assert.match(server, `ssl_certificate "${join(config.nginx.tlsDir, domain, 'fullchain.pem')}";`);
  assert.match(server, `include "${routesDirOf(config)}/*.conf";`);
  const name = vhostName(shared);
  assert.not.match(await readFile(join(config.nginx.sitesAvailable, name), 'utf8'), 'ssl_');
  assert.equal([await listed(routesDirOf(config)), (await listed(config.nginx.sitesEnabled)).includes(name)], [[name], false]);
  await applyVhostChanges(config, NONE, [{ op: 'disable', name }]);
  assert.equal(await listed(routesDirOf(config)), []);
  await applyVhostChanges(config, NONE, [{ op: 'enable', name }]);
  assert.equal(await listed(routesDirOf(config)), [name], 'an enable reads the file to know it is a route');
  assert.equal(await listed(config.nginx.tlsDir), [domain], 'a route\'s enable stages no certificate of its own');
});

s('a put nginx refuses leaves neither the vhost nor its copies', async ({ config }) => {
  await certbotLineage(config, A, pairs.one);
  const failing = systemConfig({ ...config, binaries: { ...config.binaries, nginx: '/bin/false' } });
  assert.match(await message(applyVhostChanges(failing, NONE, [{ op: 'put', spec: appSpec(A), enabled: true }])), /^nginx configuration test failed/);
  assert.equal([await listed(config.nginx.sitesAvailable), await listed(config.nginx.tlsDir)], [[], []]);
});

s('a refresh copies for the vhosts already written, and rewrites a vhost that named the panel\'s files', async ({ config }) => {
  await certbotLineage(config, A, pairs.one);
  await certbotLineage(config, 'b.example.test', pairs.two);
  await mkdir(config.nginx.sitesAvailable, { recursive: true });
  const name = vhostName(appSpec(A));
  await writeFile(join(config.nginx.sitesAvailable, name), `ssl_certificate "${join(config.acme.configDir, 'live', A, 'fullchain.pem')}";\n`);
  assert.equal(await refreshVhostSpecs(config, NONE, [appSpec(A), appSpec('b.example.test')]), [name]);
  assert.equal(await listed(config.nginx.tlsDir), [A], 'b has no vhost: a refresh writes none, so copies none');
  assert.match(await readFile(join(config.nginx.sitesAvailable, name), 'utf8'), `ssl_certificate "${join(config.nginx.tlsDir, A, 'fullchain.pem')}";`);
});

s('nginx-test and nginx-reload copy a renewal first; a refused source keeps its copy, with one line in the log', async ({ config, log }) => {
  const dispatcher = createDispatcher(config, NONE, (line) => log.push(line));
  const ask = async (request: unknown) => (await dispatcher.answer(JSON.stringify(request))).answer;
  await certbotLineage(config, A, pairs.one);
  await applyVhostChanges(config, NONE, [{ op: 'put', spec: appSpec(A), enabled: true }]);
  await certbotLineage(config, A, pairs.two, 2);
  assert.equal(await ask({ action: 'nginx-reload' }), { ok: true });
  assert.is(await readFile(join(config.nginx.tlsDir, A, 'privkey.pem'), 'utf8'), await readFile(pairs.two.privkey, 'utf8'));
  const live = join(config.acme.configDir, 'live', A, 'privkey.pem');
  await unlink(live);
  await symlink(pairs.one.privkey, live);
  assert.equal(await ask({ action: 'nginx-test' }), { ok: true });
  assert.is(await readFile(join(config.nginx.tlsDir, A, 'privkey.pem'), 'utf8'), await readFile(pairs.two.privkey, 'utf8'), 'the previous copy stays');
  assert.equal(log, [`tls copies: kept ${join(config.nginx.tlsDir, A)} as it was: ${live} refused: a link to ${JSON.stringify(pairs.one.privkey)}, not ../../archive/${A}/privkey<n>.pem`]);
});

s('a FIFO planted as a certificate: the vhost change is refused without blocking on it, and an nginx-test sent with it is answered', async ({ config, log }) =>
  // a helper blocked in open() on the FIFO answers neither request: the timeout fails the test, and
  // only after it does the FIFO get a writer (below), so the run can end
  withTimeout('fifo', 50_000, async () => {
    const dispatcher = createDispatcher(config, NONE, (line) => log.push(line));
    await certbotLineage(config, A, pairs.one);
    await applyVhostChanges(config, NONE, [{ op: 'put', spec: appSpec(A), enabled: true }]);
    const fifo = join(config.acme.configDir, 'live', A, 'fullchain.pem');
    await unlink(fifo);
    execFileSync('/usr/bin/mkfifo', [fifo]);
    const afterTimeout = setTimeout(() => void open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then((h) => h.close(), () => undefined), 60_000).unref();
    const answer = async (request: unknown) => (await dispatcher.answer(JSON.stringify(request))).answer;
    const [put, test] = await Promise.all([
      answer({ action: 'vhosts', changes: [{ op: 'put', spec: appSpec(A), enabled: true }] }),
      answer({ action: 'nginx-test' }),
    ]);
    clearTimeout(afterTimeout);
    assert.is(put.ok, false);
    assert.is((put as { error?: string }).error, `Refused: ${fifo} refused: a FIFO, not certbot's link or a regular file`);
    assert.is(test.ok, true);
    assert.ok((await lstat(join(config.nginx.tlsDir, A, 'fullchain.pem'))).isFile(), 'the copy nginx loads is untouched');
    assert.equal(log, [`tls copies: kept ${join(config.nginx.tlsDir, A)} as it was: ${fifo} refused: a FIFO, not certbot's link or a regular file`]);
  }));

s('a CRL root will not copy makes nginx-reload and nginx-test refusals: the client CA\'s copy kept, a revocation not in force', async ({ config, log }) => {
  const dispatcher = createDispatcher(config, NONE, (line) => log.push(line));
  const ask = async (request: unknown) => (await dispatcher.answer(JSON.stringify(request))).answer;
  const { crl } = await ipPanelMaterial(config, pairs.one);
  await applyVhostChanges(config, NONE, [{ op: 'put', spec: { kind: 'ip-panel' }, enabled: true }]);
  const copy = join(config.nginx.tlsDir, 'client-ca', 'crl.pem');
  const good = await readFile(copy, 'utf8');
  assert.equal(await ask({ action: 'nginx-reload' }), { ok: true });
  const kept = `nginx keeps the client CA and CRL in ${join(config.nginx.tlsDir, 'client-ca')} as they were, so a revocation since is not in force`;
  // the panel's user puts something else in place of the CRL, or moves it aside
  await writeFile(crl, await readFile(pairs.two.fullchain, 'utf8'));
  for (const action of ['nginx-reload', 'nginx-test']) {
    assert.equal(await ask({ action }), { ok: false, error: `Refused: ${crl} refused: not one X509 CRL block (CERTIFICATE): ${kept}` }, action);
  }
  await unlink(crl);
  await symlink(pairs.two.fullchain, crl);
  assert.equal(await ask({ action: 'nginx-reload' }), { ok: false, error: `Refused: ${crl} refused: a symbolic link: ${kept}` });
  await unlink(crl);
  assert.equal(await ask({ action: 'nginx-reload' }), { ok: false, error: `Refused: ${crl} does not exist: ${kept}` });
  assert.is(await readFile(copy, 'utf8'), good);
  assert.is(log.length, 4);
  await systemPki(config, config.pki.dir).ensureCa();
  assert.equal(await ask({ action: 'nginx-reload' }), { ok: true });
});

s('a root panel (runAs null): the installer\'s vhosts name the panel\'s files as the root panel renders them, no copy is made, and a reload restages nothing', async ({ config, log }) => {
  const root = systemConfig({ ...config, systemd: { ...config.systemd, runAs: null } });
  await certbotLineage(root, A, pairs.one);
  const { ca, crl } = await ipPanelMaterial(root, pairs.two);
  const specs: VhostSpec[] = [appSpec(A), { kind: 'ip-panel' }];
  await applyVhostChanges(root, NONE, specs.map((spec) => ({ op: 'put' as const, spec, enabled: true })));
  const app = await readFile(join(root.nginx.sitesAvailable, vhostName(appSpec(A))), 'utf8');
  assert.match(app, `ssl_certificate_key "${join(root.acme.configDir, 'live', A, 'privkey.pem')}";`);
  const ip = await readFile(join(root.nginx.sitesAvailable, 'relay-ip-panel.conf'), 'utf8');
  for (const line of [`ssl_certificate "${join(root.nginx.selfSignedDir, 'ip-panel.pem')}";`, `ssl_client_certificate "${ca}";`, `ssl_crl "${crl}";`]) assert.match(ip, line);
  assert.equal(await listed(root.nginx.tlsDir), []);
  // the root panel itself (no helper) renders the same text: its start-up refresh flips nothing
  const rootActions = directRootActions(root);
  const panelProxy = createHostProxy(root, { certs: createHostCerts(root, rootActions, Date.now), pki: systemPki(root, root.pki.dir), root: rootActions, helper: null, dataDir: root.pki.dir });
  assert.equal(await panelProxy.refresh(specs), []);
  assert.equal(await refreshVhostSpecs(root, NONE, specs), []);
  const dispatcher = createDispatcher(root, NONE, (line) => log.push(line));
  assert.equal((await dispatcher.answer(JSON.stringify({ action: 'nginx-reload' }))).answer, { ok: true });
  assert.equal([await listed(root.nginx.tlsDir), log], [[], []]);
});

s.run();
