// The root helper's per-name shared server on an installed box (the panel has a user of its own):
// the certificate map is made from root's checked copies only, never from the panel's files; each
// route's lineage is copied when the route or the server is put (a switch back to per-name puts the
// server over routes whose text does not change); a renewal reaches the map at the deploy hook's
// reload; a planted link refuses the change and nothing is written. /bin/true plays nginx.
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createDispatcher } from '../../../../lib/root-helper/dispatch.ts';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import type { CertPaths, VhostSpec } from '../../../../lib/system/types.ts';
import { sniEntryPathsIn } from '../../../../lib/system/proxy/sni-map.ts';
import { certPairs } from '../../../helpers/cert-pairs.ts';
import { certbotLineage, helperVhostConfig } from './fixtures.ts';

const DOMAIN = 'example.test';
const A = `a.${DOMAIN}`;
const B = `b.${DOMAIN}`;
const NONE = { exact: [], prefix: [] };
const SERVER: VhostSpec = { kind: 'tunnels', fqdn: DOMAIN, sni: true };
const route = (fqdn: string, port: number): VhostSpec => ({ kind: 'app', fqdn, port, shared: true });
const put = (spec: VhostSpec) => ({ op: 'put', spec, enabled: true });

interface Ctx { dir: string; config: SystemConfig; log: string[] }
const s = suite<Ctx>('root helper: the per-name shared server\'s certificate map, from root\'s copies', { dir: '', config: systemConfig(), log: [] });

let fixtures = '';
let pairs: Record<'a' | 'a2' | 'b' | 'fallback', CertPaths>;
s.before(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'relay-sni-fixtures-'));
  pairs = await certPairs(fixtures, { a: A, a2: A, b: B, fallback: 'relay-default' });
});
s.after(() => rm(fixtures, { recursive: true, force: true }));

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-sni-helper-'));
  ctx.log = [];
  ctx.config = helperVhostConfig(ctx.dir);
  await mkdir(ctx.config.nginx.selfSignedDir, { recursive: true });
  await copyFile(pairs.fallback.fullchain, join(ctx.config.nginx.selfSignedDir, 'default.pem'));
  await copyFile(pairs.fallback.privkey, join(ctx.config.nginx.selfSignedDir, 'default.key'));
});
s.after.each(({ dir }) => rm(dir, { recursive: true, force: true }));

const ask = async (c: SystemConfig, log: string[], request: unknown) => (await createDispatcher(c, NONE, (line) => log.push(line)).answer(JSON.stringify(request))).answer;
/** A name's entry as nginx joins it: its parts' values, in order; null when it has none. */
async function entry(c: SystemConfig, fqdn: string): Promise<string | null> {
  const parts = await Promise.all(sniEntryPathsIn(join(c.nginx.tlsDir, 'sni', 'names'), fqdn).map((path) => readFile(path, 'utf8').catch(() => null)));
  if (parts.some((p) => p === null)) return null;
  return `${fqdn} "${parts.map((p) => /^[a-z0-9.-]+ "([^"]*)";\n$/.exec(p!)![1]).join('')}";\n`;
}
const pem = async (path: string) => (await readFile(path, 'utf8')).trim();

s('a route and the server put: each route\'s copy made and its map entry made from it, 0600 in a 0700 directory', async ({ config, log }) => {
  await certbotLineage(config, A, pairs.a);
  await certbotLineage(config, B, pairs.b);
  assert.equal(await ask(config, log, { action: 'vhosts', changes: [put(SERVER), put(route(A, 8080)), put(route(B, 8081))] }), { ok: true });
  assert.equal((await readdir(config.nginx.tlsDir)).sort(), [A, B, 'default', 'sni']);
  const a = await entry(config, A);
  assert.ok(a?.startsWith(`${A} "${await pem(pairs.a.fullchain)}`), 'the copy\'s certificate, as the entry\'s value');
  assert.match(a!, /-----BEGIN PRIVATE KEY-----/);
  assert.ok((await entry(config, B))?.startsWith(`${B} "`));
  assert.is((await stat(join(config.nginx.tlsDir, 'sni'))).mode & 0o777, 0o700);
  assert.is((await stat(join(config.nginx.tlsDir, 'sni', 'fallback.0.conf'))).mode & 0o777, 0o600);
  assert.match(await readFile(join(config.nginx.tlsDir, 'sni', 'fallback.0.conf'), 'utf8'), /^default "-----BEGIN CERTIFICATE-----/);
  assert.equal(log, []);
});

s('a renewal reaches the map at the deploy hook\'s reload', async ({ config, log }) => {
  await certbotLineage(config, A, pairs.a);
  assert.equal(await ask(config, log, { action: 'vhosts', changes: [put(SERVER), put(route(A, 8080))] }), { ok: true });
  await certbotLineage(config, A, pairs.a2, 2);
  assert.equal(await ask(config, log, { action: 'nginx-reload' }), { ok: true });
  assert.ok((await entry(config, A))?.startsWith(`${A} "${await pem(pairs.a2.fullchain)}`), 'the renewed certificate');
});

s('the server put over routes written under the wildcard (a switch back): every route\'s lineage copied and mapped', async ({ config, log }) => {
  await certbotLineage(config, DOMAIN, pairs.fallback);
  assert.equal(await ask(config, log, { action: 'vhosts', changes: [put(route(A, 8080)), put(route(B, 8081))] }), { ok: true });
  assert.is(await entry(config, A), null, 'no map while no server names it');
  await certbotLineage(config, A, pairs.a);
  await certbotLineage(config, B, pairs.b);
  assert.equal(await ask(config, log, { action: 'vhosts', changes: [put(SERVER)] }), { ok: true });
  assert.ok((await entry(config, A))?.startsWith(`${A} "`));
  assert.ok((await entry(config, B))?.startsWith(`${B} "`));
});

s('attack: a route\'s live link planted outside its archive refuses the put; no copy and no entry is made', async ({ config, log }) => {
  await certbotLineage(config, A, pairs.a);
  assert.equal(await ask(config, log, { action: 'vhosts', changes: [put(SERVER)] }), { ok: true });
  await certbotLineage(config, B, pairs.b);
  const live = join(config.acme.configDir, 'live', B, 'privkey.pem');
  await unlink(live);
  await symlink(pairs.a.privkey, live);
  const answer = await ask(config, log, { action: 'vhosts', changes: [put(route(B, 8081))] });
  assert.equal(answer, { ok: false, error: `Refused: ${live} refused: a link to ${JSON.stringify(pairs.a.privkey)}, not ../../archive/${B}/privkey<n>.pem` });
  assert.is(await entry(config, B), null);
  assert.not.ok((await readdir(config.nginx.tlsDir)).includes(B));
});

s('under the wildcard no route\'s own lineage is copied, so an old one planted with a link refuses nothing; the map\'s entries, keys included, go with the per-name server', async ({ config, log }) => {
  await certbotLineage(config, DOMAIN, pairs.fallback);
  await certbotLineage(config, A, pairs.a);
  assert.equal(await ask(config, log, { action: 'vhosts', changes: [put(SERVER), put(route(A, 8080))] }), { ok: true });
  assert.ok(await entry(config, A));
  const wildcardServer: VhostSpec = { kind: 'tunnels', fqdn: DOMAIN };
  assert.equal(await ask(config, log, { action: 'vhosts', changes: [put(wildcardServer)] }), { ok: true });
  assert.equal(await readdir(join(config.nginx.tlsDir, 'sni', 'names')), [], 'no key left in the map\'s directory');
  assert.not.ok((await readdir(config.nginx.tlsDir)).includes(A), 'the route\'s own copy pruned');
  await certbotLineage(config, B, pairs.b);
  const live = join(config.acme.configDir, 'live', B, 'privkey.pem');
  await unlink(live);
  await symlink(pairs.a.privkey, live);
  assert.equal(await ask(config, log, { action: 'vhosts', changes: [put({ ...route(B, 8081), cert: DOMAIN } as VhostSpec)] }), { ok: true });
});

s('the proxy unit\'s start, restart or reload (no test or reload of the helper\'s own before it) makes the map first', async ({ config, log }) => {
  const withUnits = systemConfig({ ...config, binaries: { ...config.binaries, systemctl: '/bin/true' } });
  await certbotLineage(withUnits, A, pairs.a);
  assert.equal(await ask(withUnits, log, { action: 'vhosts', changes: [put(SERVER), put(route(A, 8080))] }), { ok: true });
  await rm(join(withUnits.nginx.tlsDir, 'sni'), { recursive: true });
  assert.equal(await ask(withUnits, log, { action: 'unit', unit: 'proxy', op: 'restart' }), { ok: true });
  assert.ok((await entry(withUnits, A))?.startsWith(`${A} "`), 'made again before nginx loads it');
});

s.run();
