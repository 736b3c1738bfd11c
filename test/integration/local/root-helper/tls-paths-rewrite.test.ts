// Vhosts an earlier release wrote, naming the panel's own files (lib/root-helper/tls-paths-rewrite.ts,
// tls-directives.ts): root rewrites them to its copies, staged first, stamped again when they were
// as relay-panel wrote them; a refused source or a failed nginx -t leaves every file as it was; the
// helper lets nginx load nothing while one is there. A shell script plays nginx and logs its calls
// (the real one: test/integration/install/root-helper.test.ts).
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyVhostChanges, helperTemplateContext } from '../../../../lib/root-helper/apply.ts';
import { createDispatcher } from '../../../../lib/root-helper/dispatch.ts';
import { isCopyPath, tlsPathDirectives } from '../../../../lib/root-helper/tls-directives.ts';
import { rewriteTlsPaths } from '../../../../lib/root-helper/tls-paths-rewrite.ts';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import { OpensslPki } from '../../../../lib/system/pki/openssl-pki.ts';
import { renderVhost, vhostName } from '../../../../lib/system/proxy/templates.ts';
import { stampVhost, vhostIntact } from '../../../../lib/system/proxy/vhost-stamp.ts';
import type { CertPaths, VhostSpec } from '../../../../lib/system/types.ts';
import { certPairs } from '../../../helpers/cert-pairs.ts';

const A = 'a.example.test';
const B = 'b.example.test';
const NONE = { exact: [], prefix: [] };
const appSpec = (fqdn: string): VhostSpec => ({ kind: 'app', fqdn, port: 8080 });
const IP_PANEL: VhostSpec = { kind: 'ip-panel' };

interface Ctx { dir: string; config: SystemConfig; log: string[] }
const s = suite<Ctx>('root rewrites the TLS paths of an earlier release\'s vhosts', { dir: '', config: systemConfig(), log: [] });

let fixtures = '';
let pairs: Record<'one' | 'two' | 'ip', CertPaths>;
/** the panel's client CA and CRL, made once */
let ca: { cert: string; crl: string };
s.before(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'relay-tls-rewrite-fixtures-'));
  pairs = await certPairs(fixtures, { one: A, two: A, ip: 'relay-panel' });
  const pki = new OpensslPki({ openssl: '/usr/bin/openssl', dir: join(fixtures, 'pki'), caCommonName: 'test-ca', clientCertDays: 2, timeoutMs: 20_000 });
  const made = await pki.ensureCa();
  ca = { cert: made.caPath, crl: made.crlPath };
});
s.after(() => rm(fixtures, { recursive: true, force: true }));

const FAKE_NGINX = `#!/bin/sh
here=$(dirname "$0")
echo "$*" >> "$here/nginx.log"
case " $* " in *" -t "*) if [ -e "$here/nginx-fails" ]; then echo "nginx: [emerg] test refused" >&2; exit 1; fi ;; esac
exit 0
`;

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-tls-rewrite-'));
  ctx.log = [];
  await mkdir(join(ctx.dir, 'bin'));
  await writeFile(join(ctx.dir, 'bin', 'nginx'), FAKE_NGINX);
  await chmod(join(ctx.dir, 'bin', 'nginx'), 0o755);
  ctx.config = systemConfig({
    driver: 'host',
    binaries: { nginx: join(ctx.dir, 'bin', 'nginx') },
    nginx: {
      sitesAvailable: join(ctx.dir, 'available'), sitesEnabled: join(ctx.dir, 'enabled'), tlsDir: join(ctx.dir, 'tls'),
      selfSignedDir: join(ctx.dir, 'self-signed'), errorLog: join(ctx.dir, 'error.log'), reloadCheckMs: 0, helpDir: join(ctx.dir, 'help'),
    },
    acme: { configDir: join(ctx.dir, 'le'), webroot: join(ctx.dir, 'webroot') },
    pki: { dir: join(ctx.dir, 'pki') },
    // a panel with a user of its own; root stands for it, as the test's files are the test's user's
    systemd: { runAs: 'root' },
  });
  // what the panel's user made: a lineage, the IP panel's certificate, the client CA and its CRL
  await lineage(ctx.config, A, pairs.one);
  await mkdir(ctx.config.nginx.selfSignedDir);
  await copyFile(pairs.ip.fullchain, join(ctx.config.nginx.selfSignedDir, 'ip-panel.pem'));
  await copyFile(pairs.ip.privkey, join(ctx.config.nginx.selfSignedDir, 'ip-panel.key'));
  await mkdir(ctx.config.pki.dir);
  await copyFile(ca.cert, join(ctx.config.pki.dir, 'ca.pem'));
  await copyFile(ca.crl, join(ctx.config.pki.dir, 'crl.pem'));
});
s.after.each(({ dir }) => rm(dir, { recursive: true, force: true }));

async function lineage(c: SystemConfig, fqdn: string, pair: CertPaths): Promise<void> {
  const archive = join(c.acme.configDir, 'archive', fqdn);
  await mkdir(archive, { recursive: true });
  await mkdir(join(c.acme.configDir, 'live', fqdn), { recursive: true });
  for (const file of ['fullchain', 'privkey'] as const) {
    await copyFile(file === 'fullchain' ? pair.fullchain : pair.privkey, join(archive, `${file}1.pem`));
    await symlink(`../../archive/${fqdn}/${file}1.pem`, join(c.acme.configDir, 'live', fqdn, `${file}.pem`));
  }
}

/** The vhost as a release before the copies wrote it: the same templates, naming the panel's files, stamped, linked. */
async function oldVhost(c: SystemConfig, spec: VhostSpec, edit: (text: string) => string = (t) => t): Promise<string> {
  const text = edit(stampVhost(renderVhost(spec, helperTemplateContext(systemConfig({ ...c, systemd: { ...c.systemd, runAs: null } }), NONE))));
  const file = join(c.nginx.sitesAvailable, vhostName(spec));
  await mkdir(c.nginx.sitesAvailable, { recursive: true });
  await mkdir(c.nginx.sitesEnabled, { recursive: true });
  await writeFile(file, text);
  await symlink(file, join(c.nginx.sitesEnabled, vhostName(spec)));
  return text;
}

const current = (c: SystemConfig, spec: VhostSpec) => stampVhost(renderVhost(spec, helperTemplateContext(c, NONE)));
const vhostText = (c: SystemConfig, spec: VhostSpec) => readFile(join(c.nginx.sitesAvailable, vhostName(spec)), 'utf8');
const nginxCalls = async (dir: string) => (await readFile(join(dir, 'bin', 'nginx.log'), 'utf8').catch(() => '')).trim().split('\n').filter(Boolean).map((l) => l.split(' ').slice(-2).join(' '));
const listed = (dir: string) => readdir(dir).catch(() => [] as string[]);
const message = (p: Promise<unknown>) => p.then((v) => `ok ${JSON.stringify(v)}`, (e: Error) => e.message);

s('an earlier release\'s vhosts are rewritten to root\'s copies, staged first: the text the helper renders now, stamped, linked as before; one test and reload', async ({ dir, config }) => {
  const before = await oldVhost(config, appSpec(A));
  await oldVhost(config, IP_PANEL);
  for (const panelFile of [join(config.acme.configDir, 'live', A, 'fullchain.pem'), join(config.pki.dir, 'crl.pem'), join(config.nginx.selfSignedDir, 'ip-panel.key')]) {
    assert.ok(before.includes(panelFile) || (await vhostText(config, IP_PANEL)).includes(panelFile), panelFile);
  }
  assert.equal(await rewriteTlsPaths(config), [vhostName(appSpec(A)), vhostName(IP_PANEL)].sort());
  for (const spec of [appSpec(A), IP_PANEL]) {
    const text = await vhostText(config, spec);
    assert.is(text, current(config, spec), `${spec.kind}: what the panel's refresh would write, so it rewrites nothing`);
    assert.ok(vhostIntact(text), 'stamped again: doctor calls it no hand edit');
    const file = join(config.nginx.sitesAvailable, vhostName(spec));
    assert.is((await stat(file)).mode & 0o777, 0o644);
    assert.is(await readlink(join(config.nginx.sitesEnabled, vhostName(spec))), file);
    for (const d of tlsPathDirectives(text)) assert.ok(isCopyPath(config.nginx.tlsDir, d.path), d.path);
  }
  assert.equal((await listed(config.nginx.tlsDir)).sort(), [A, 'client-ca', 'ip-panel']);
  assert.is(await readFile(join(config.nginx.tlsDir, A, 'privkey.pem'), 'utf8'), await readFile(pairs.one.privkey, 'utf8'));
  assert.is(await readFile(join(config.nginx.tlsDir, 'client-ca', 'crl.pem'), 'utf8'), await readFile(ca.crl, 'utf8'));
  assert.equal(await nginxCalls(dir), ['-t -q', '-s reload']);
  assert.equal(await rewriteTlsPaths(config), [], 'a second run finds nothing');
  assert.equal(await nginxCalls(dir), ['-t -q', '-s reload'], 'and neither tests nor reloads');
});

s('nginx\'s reading: a commented line is left, an unquoted or single-quoted path on a shared line is rewritten; a hand-edited vhost keeps its stamp, which still does not match', async ({ config }) => {
  const live = join(config.acme.configDir, 'live', A);
  const edit = (text: string) => text.replace(/ssl_certificate "[^"]+";\n\s*ssl_certificate_key "[^"]+";/,
    `# ssl_certificate "/etc/ssl/kept.pem";\n    ssl_certificate ${live}/fullchain.pem; ssl_certificate_key '${live}/privkey.pem';`);
  const before = await oldVhost(config, appSpec(A), edit);
  assert.not.ok(vhostIntact(before));
  assert.equal(await rewriteTlsPaths(config), [vhostName(appSpec(A))]);
  const after = await vhostText(config, appSpec(A));
  const copies = join(config.nginx.tlsDir, A);
  assert.match(after, `# ssl_certificate "/etc/ssl/kept.pem";\n    ssl_certificate "${copies}/fullchain.pem"; ssl_certificate_key "${copies}/privkey.pem";`);
  assert.is(after.slice(after.lastIndexOf('\n# relay-panel sha256 ')), before.slice(before.lastIndexOf('\n# relay-panel sha256 ')));
  assert.not.ok(vhostIntact(after), 'doctor still names the hand edit');
});

s('a path that only looks like a copy is not one: .. out of tlsDir, a variable, tlsDir itself', ({ config }) => {
  const { tlsDir } = config.nginx;
  assert.ok(isCopyPath(tlsDir, `${tlsDir}/${A}/fullchain.pem`));
  for (const path of [`${tlsDir}/../le/live/${A}/fullchain.pem`, `${tlsDir}/$ssl_server_name/privkey.pem`, `${tlsDir}/`, `${tlsDir}x/a.pem`, `${tlsDir}/./a.pem`]) {
    assert.not.ok(isCopyPath(tlsDir, path), path);
  }
  assert.equal(tlsPathDirectives(`ssl_crl "/a\\"b";ssl_certificate\n/x\\;y;`).map((d) => [d.directive, d.path]), [['ssl_crl', '/a"b'], ['ssl_certificate', '/x\\;y']]);
});

s('a refused source refuses the rewrite: no file changed, no copy, nginx not run', async ({ dir, config }) => {
  const app = await oldVhost(config, appSpec(A));
  const ip = await oldVhost(config, IP_PANEL);
  const live = join(config.acme.configDir, 'live', A, 'privkey.pem');
  await unlink(live);
  await symlink(pairs.two.privkey, live);
  assert.is(await message(rewriteTlsPaths(config)), `Refused: ${live} refused: a link to ${JSON.stringify(pairs.two.privkey)}, not ../../archive/${A}/privkey<n>.pem`);
  assert.equal([await vhostText(config, appSpec(A)), await vhostText(config, IP_PANEL)], [app, ip]);
  assert.equal(await listed(config.nginx.tlsDir), []);
  assert.equal(await nginxCalls(dir), []);
});

s('a failed nginx -t puts every file back and does not reload', async ({ dir, config }) => {
  const app = await oldVhost(config, appSpec(A));
  const ip = await oldVhost(config, IP_PANEL);
  await writeFile(join(dir, 'bin', 'nginx-fails'), '');
  assert.match(await message(rewriteTlsPaths(config)), /^nginx configuration test failed/);
  assert.equal([await vhostText(config, appSpec(A)), await vhostText(config, IP_PANEL)], [app, ip]);
  assert.equal(await nginxCalls(dir), ['-t -q']);
});

s('a root panel (runAs null) names its own files: nothing is rewritten', async ({ dir, config }) => {
  const root = systemConfig({ ...config, systemd: { ...config.systemd, runAs: null } });
  const app = await oldVhost(root, appSpec(A));
  assert.equal(await rewriteTlsPaths(root), []);
  assert.is(await vhostText(root, appSpec(A)), app);
  assert.equal([await listed(root.nginx.tlsDir), await nginxCalls(dir)], [[], []]);
});

s('the helper lets nginx load nothing while an earlier release\'s vhost is there; a change that rewrites it passes; after the rewrite all pass', async ({ dir, config, log }) => {
  const dispatcher = createDispatcher(config, NONE, (line) => log.push(line));
  const ask = async (request: unknown) => (await dispatcher.answer(JSON.stringify(request))).answer;
  await lineage(config, B, pairs.two);
  await applyVhostChanges(config, NONE, [{ op: 'put', spec: appSpec(B), enabled: true }]);
  const calls = (await nginxCalls(dir)).length;
  await oldVhost(config, IP_PANEL);
  const refused = { ok: false, error: `Refused: relay-ip-panel.conf loads ${join(config.nginx.selfSignedDir, 'ip-panel.pem')}, not root's copy: relay-panel install rewrites it` };
  for (const request of [{ action: 'nginx-reload' }, { action: 'nginx-test' }, { action: 'unit', unit: 'proxy', op: 'restart' },
    { action: 'unit', unit: 'proxy', op: 'start' }, { action: 'vhosts', changes: [{ op: 'disable', name: vhostName(appSpec(B)) }] },
    { action: 'vhosts-refresh', specs: [appSpec(B)] }]) {
    assert.equal(await ask(request), refused, JSON.stringify(request));
  }
  assert.is((await nginxCalls(dir)).length, calls, 'nginx never ran');
  assert.is(await readlink(join(config.nginx.sitesEnabled, vhostName(appSpec(B)))), join(config.nginx.sitesAvailable, vhostName(appSpec(B))));
  // the panel's own start-up refresh of that vhost moves it to the copies: it passes
  assert.equal(await ask({ action: 'vhosts-refresh', specs: [IP_PANEL, appSpec(B)] }), { ok: true, rewritten: [vhostName(IP_PANEL)] });
  assert.equal(await ask({ action: 'nginx-reload' }), { ok: true });
  await unlink(join(config.nginx.sitesEnabled, vhostName(IP_PANEL)));
  await unlink(join(config.nginx.sitesAvailable, vhostName(IP_PANEL)));
  await oldVhost(config, appSpec(A));
  assert.is((await ask({ action: 'nginx-test' })).ok, false);
  assert.equal(await rewriteTlsPaths(config), [vhostName(appSpec(A))]);
  assert.equal(await ask({ action: 'nginx-test' }), { ok: true });
  assert.equal(log, []);
});

s.run();
