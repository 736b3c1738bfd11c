// The root helper's vhosts serving a lineage other than their own name's (the wildcard of the base
// domain, `cert` in an app's or site's spec): root takes the lineage from the checked spec on a put
// and from its own vhost file on an enable, a restage and a prune, and copies it only from
// certbot's live directory of its configuration. A request naming a lineage by path, with `..`, or
// one that does not cover the vhost's name is refused and nothing is written. /bin/true plays nginx.
import { mkdtemp, readdir, readFile, rm, symlink, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyVhostChanges, helperTemplateContext } from '../../../../lib/root-helper/apply.ts';
import { createDispatcher } from '../../../../lib/root-helper/dispatch.ts';
import { entriesOfSpec, entriesOfVhostText } from '../../../../lib/root-helper/tls-entries.ts';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import { renderVhost, vhostName } from '../../../../lib/system/proxy/templates.ts';
import type { CertPaths, VhostSpec } from '../../../../lib/system/types.ts';
import { certPairs } from '../../../helpers/cert-pairs.ts';
import { startHelperServer } from '../../../../lib/root-helper/server.ts';
import { createHostCerts } from '../../../../lib/system/certs/host.ts';
import { systemPki } from '../../../../lib/system/pki/openssl-pki.ts';
import { createHostProxy } from '../../../../lib/system/proxy/host.ts';
import { rootCall, socketRootActions } from '../../../../lib/system/root/root-client.ts';
import { certbotLineage, helperVhostConfig, SITES } from './fixtures.ts';

const DOMAIN = 'example.test';
const A = `a.${DOMAIN}`;
const SITE_ID = '0b5e3f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const NONE = { exact: [], prefix: [] };
const wildApp = (fqdn = A, cert: string = DOMAIN): VhostSpec => ({ kind: 'app', fqdn, port: 8080, cert });
const wildSite = (cert: string = DOMAIN): VhostSpec => ({ kind: 'site', fqdn: `docs.${DOMAIN}`, root: `${SITES}/${SITE_ID}`, spaMode: false, protected: false, cert });

interface Ctx { dir: string; config: SystemConfig; log: string[] }
const s = suite<Ctx>('root helper vhosts serving a wildcard lineage', { dir: '', config: systemConfig(), log: [] });

let fixtures = '';
let pairs: Record<'one' | 'two', CertPaths>;
s.before(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'relay-wild-fixtures-'));
  pairs = await certPairs(fixtures, { one: DOMAIN, two: DOMAIN });
});
s.after(() => rm(fixtures, { recursive: true, force: true }));

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-wild-vhosts-'));
  ctx.log = [];
  ctx.config = helperVhostConfig(ctx.dir);
});
s.after.each(({ dir }) => rm(dir, { recursive: true, force: true }));

const listed = (dir: string) => readdir(dir).then((names) => names.sort(), () => [] as string[]);
const ask = async (c: SystemConfig, log: string[], request: unknown) => (await createDispatcher(c, NONE, (line) => log.push(line)).answer(JSON.stringify(request))).answer;

s('a vhost naming the wildcard loads exactly its lineage\'s copies, from its spec and from its written text alike', ({ config }) => {
  const context = helperTemplateContext(config, NONE);
  for (const spec of [wildApp(), wildSite(), { ...wildSite(), closed: true } as VhostSpec]) {
    const text = renderVhost(spec, context);
    assert.match(text, `ssl_certificate "${join(config.nginx.tlsDir, DOMAIN, 'fullchain.pem')}";`, spec.kind);
    assert.equal(entriesOfSpec(spec), [DOMAIN], spec.kind);
    assert.equal(entriesOfVhostText(config.nginx.tlsDir, vhostName(spec), text), [DOMAIN], spec.kind);
  }
});

s('put, disable, enable after a renewal, reload, remove: the wildcard\'s copy follows the vhosts that load it', async ({ config, log }) => {
  await certbotLineage(config, DOMAIN, pairs.one);
  const name = vhostName(wildApp());
  assert.equal(await ask(config, log, { action: 'vhosts', changes: [{ op: 'put', spec: wildApp(), enabled: true }, { op: 'put', spec: wildSite(), enabled: true }] }), { ok: true });
  assert.equal(await listed(config.nginx.tlsDir), [DOMAIN], 'the lineage the specs name, no entry for either name');
  assert.is(await readFile(join(config.nginx.tlsDir, DOMAIN, 'privkey.pem'), 'utf8'), await readFile(pairs.one.privkey, 'utf8'));
  // a renewal (certbot's deploy hook is a reload): the copy follows the written vhosts' lineage
  await certbotLineage(config, DOMAIN, pairs.two, 2);
  assert.equal(await ask(config, log, { action: 'nginx-reload' }), { ok: true });
  assert.is(await readFile(join(config.nginx.tlsDir, DOMAIN, 'privkey.pem'), 'utf8'), await readFile(pairs.two.privkey, 'utf8'));
  assert.equal(log, [], 'nothing kept: the lineage was copied again');
  // an enable carries a name only: its lineage comes from its file
  await applyVhostChanges(config, NONE, [{ op: 'disable', name }]);
  await rm(join(config.nginx.tlsDir, DOMAIN), { recursive: true });
  await applyVhostChanges(config, NONE, [{ op: 'enable', name }]);
  assert.is(await readFile(join(config.nginx.tlsDir, DOMAIN, 'fullchain.pem'), 'utf8'), await readFile(pairs.two.fullchain, 'utf8'));
  // kept while one vhost loads it, pruned with the last
  assert.equal(await ask(config, log, { action: 'vhosts', changes: [{ op: 'remove', name }] }), { ok: true });
  assert.equal(await listed(config.nginx.tlsDir), [DOMAIN]);
  assert.equal(await ask(config, log, { action: 'vhosts', changes: [{ op: 'remove', name: vhostName(wildSite()) }] }), { ok: true });
  assert.equal(await listed(config.nginx.tlsDir), []);
});

s('attack: a lineage named by path, with `..`, or one that does not cover the name is refused, and nothing is written', async ({ config, log }) => {
  await certbotLineage(config, DOMAIN, pairs.one);
  await certbotLineage(config, 'other.test', pairs.two);
  const refused: Array<[unknown, RegExp]> = [
    [wildApp(A, '..'), /^Refused: changes\.0\.spec\.cert: must be a lowercase domain name$/],
    [wildApp(A, '../../../etc/ssl'), /^Refused: changes\.0\.spec\.cert: must be a lowercase domain name$/],
    [wildApp(A, `${DOMAIN}/../other.test`), /^Refused: changes\.0\.spec\.cert: must be a lowercase domain name$/],
    [wildApp(A, '/etc/ssl/private'), /^Refused: changes\.0\.spec\.cert: must be a lowercase domain name$/],
    [wildApp(A, `..${DOMAIN}`), /^Refused: changes\.0\.spec\.cert: must be a lowercase domain name$/],
    // well-formed names, but not a lineage that covers the vhost's name
    [wildApp(A, 'other.test'), /^Refused: changes\.0\.spec\.cert: must be the name's own lineage or its parent domain's wildcard$/],
    [wildApp(`deep.a.${DOMAIN}`, DOMAIN), /^Refused: changes\.0\.spec\.cert: must be the name's own lineage or its parent domain's wildcard$/],
    [wildSite('test'), /^Refused: changes\.0\.spec\.cert: must be/],
    [{ kind: 'panel', fqdn: `panel.${DOMAIN}`, cert: DOMAIN }, /^Refused: changes\.0\.spec: Unrecognized key: "cert"$/],
  ];
  for (const [spec, expected] of refused) {
    const answer = await ask(config, log, { action: 'vhosts', changes: [{ op: 'put', spec, enabled: true }] });
    assert.is(answer.ok, false, JSON.stringify(spec));
    assert.match((answer as { error: string }).error, expected, JSON.stringify(spec));
    const refresh = await ask(config, log, { action: 'vhosts-refresh', specs: [spec] });
    assert.is(refresh.ok, false, `refresh ${JSON.stringify(spec)}`);
  }
  assert.equal([await listed(config.nginx.sitesAvailable), await listed(config.nginx.tlsDir)], [[], []]);
});

s('attack: the wildcard\'s live link planted outside its archive refuses the put; root never follows it', async ({ config, log }) => {
  await certbotLineage(config, DOMAIN, pairs.one);
  const live = join(config.acme.configDir, 'live', DOMAIN, 'privkey.pem');
  await unlink(live);
  await symlink(pairs.two.privkey, live);
  const answer = await ask(config, log, { action: 'vhosts', changes: [{ op: 'put', spec: wildApp(), enabled: true }] });
  assert.equal(answer, { ok: false, error: `Refused: ${live} refused: a link to ${JSON.stringify(pairs.two.privkey)}, not ../../archive/${DOMAIN}/privkey<n>.pem` });
  assert.equal([await listed(config.nginx.sitesAvailable), await listed(config.nginx.tlsDir)], [[], []]);
});

s('the panel\'s proxy on an installed box: a refresh moves a tunnel\'s vhost to the wildcard and back through the helper\'s socket', async ({ dir, config, log }) => {
  await certbotLineage(config, DOMAIN, pairs.one);
  await certbotLineage(config, A, pairs.two);
  const socket = join(dir, 'root.sock');
  const server = await startHelperServer({
    dispatcher: createDispatcher(config, NONE, (line) => log.push(line)),
    listen: { path: socket }, idleMs: 0, log: () => undefined, onIdle: () => undefined,
  });
  try {
    const helper = socketRootActions(rootCall(socket, 10_000));
    const proxy = createHostProxy(config, { certs: createHostCerts(config, helper, Date.now), pki: systemPki(config, config.pki.dir), root: helper, helper, dataDir: join(dir, 'data') });
    const own: VhostSpec = { kind: 'app', fqdn: A, port: 8080 };
    const vhost = () => readFile(join(config.nginx.sitesAvailable, vhostName(own)), 'utf8');
    await proxy.apply([{ op: 'put', spec: own, enabled: true }]);
    assert.match(await vhost(), `ssl_certificate "${join(config.nginx.tlsDir, A, 'fullchain.pem')}";`);
    assert.equal(await proxy.refresh([wildApp()]), [vhostName(own)]);
    assert.match(await vhost(), `ssl_certificate "${join(config.nginx.tlsDir, DOMAIN, 'fullchain.pem')}";`);
    assert.is(await readFile(join(config.nginx.tlsDir, DOMAIN, 'privkey.pem'), 'utf8'), await readFile(pairs.one.privkey, 'utf8'));
    assert.equal(await ask(config, log, { action: 'nginx-test' }), { ok: true });
    assert.equal(await listed(config.nginx.tlsDir), [DOMAIN], 'the name\'s own copy is pruned once no vhost loads it');
    assert.equal(await proxy.refresh([own]), [vhostName(own)]);
    assert.match(await vhost(), `ssl_certificate "${join(config.nginx.tlsDir, A, 'fullchain.pem')}";`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

s.run();
