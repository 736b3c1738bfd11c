// The certificate map's entries as syncSniFiles makes them (lib/system/proxy/sni-files.ts), driven
// directly with openssl's pairs: an entry cut short is made whole again, a renewal during the read
// is not hidden behind the entry it made, a route with a hashed file name gets its entry from its
// route line, and no fallback stops the sync.
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { syncSniFiles, type SniSources } from '../../../../lib/system/proxy/sni-files.ts';
import { SNI_DATA, sniEntryPathsIn } from '../../../../lib/system/proxy/sni-map.ts';
import type { CertPaths } from '../../../../lib/system/types.ts';
import { certPairs, installLivePair } from '../../../helpers/cert-pairs.ts';

const DOMAIN = 'files.test';
const A = `a.${DOMAIN}`;
const LONG = `${'l'.repeat(60)}.${DOMAIN}`;

interface Ctx { dir: string; pairs: Record<'a' | 'a2' | 'long' | 'fallback' | 'stranger', CertPaths> }
const s = suite<Ctx>('the certificate map\'s entries, made by syncSniFiles', { dir: '', pairs: {} as Ctx['pairs'] });

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-sni-files-'));
  await mkdir(join(ctx.dir, 'pairs'));
  ctx.pairs = await certPairs(join(ctx.dir, 'pairs'), { a: A, a2: A, long: 'long.files.test', fallback: 'relay-default', stranger: 'stranger.example' });
});
s.after(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

/** A box of its own: the shared server linked, routes for `names` (a hashed file name for LONG), each name's certificate in `live/`. */
async function box(ctx: Ctx, name: string, certs: Record<string, CertPaths>, log: string[] = [], read = (path: string) => readFile(path)): Promise<SniSources> {
  const root = join(ctx.dir, name);
  for (const d of ['enabled', 'routes', 'live', 'tls']) await mkdir(join(root, d), { recursive: true });
  await writeFile(join(root, 'enabled', `relay-tunnels-${DOMAIN}.conf`), `ssl_certificate ${SNI_DATA};\n`);
  for (const [fqdn, pair] of Object.entries(certs)) {
    const file = fqdn === LONG ? 'relay-app-3f2a9c.conf' : `relay-app-${fqdn}.conf`;
    await writeFile(join(root, 'routes', file), `${fqdn} 4101;\n`);
    await install(root, fqdn, pair);
  }
  const live = (fqdn: string) => ({ fullchain: join(root, 'live', fqdn, 'fullchain.pem'), privkey: join(root, 'live', fqdn, 'privkey.pem') });
  return { dir: join(root, 'tls', 'sni'), routesDir: join(root, 'routes'), enabledDir: join(root, 'enabled'), certFor: live, fallback: ctx.pairs.fallback, read, log: (line) => log.push(line) };
}

const install = (root: string, fqdn: string, pair: CertPaths) => installLivePair(join(root, 'live', fqdn), pair);

const entryText = async (o: SniSources, fqdn: string) => (await Promise.all(sniEntryPathsIn(join(o.dir, 'names'), fqdn).map((f) => readFile(f, 'utf8')))).join('');
const holds = async (o: SniSources, fqdn: string, pair: CertPaths) => (await entryText(o, fqdn)).includes((await readFile(pair.fullchain, 'utf8')).split('\n')[1]!);

s('a route whose file name is a hash gets its entry by its route line', async (ctx) => {
  const o = await box(ctx, 'long', { [A]: ctx.pairs.a, [LONG]: ctx.pairs.long });
  await syncSniFiles(o);
  assert.ok(await holds(o, LONG, ctx.pairs.long));
  assert.ok(await holds(o, A, ctx.pairs.a));
});

s('an entry whose last part was never written (a sync cut short) is made whole by the next sync', async (ctx) => {
  const o = await box(ctx, 'cut', { [A]: ctx.pairs.a });
  await syncSniFiles(o);
  const parts = sniEntryPathsIn(join(o.dir, 'names'), A);
  // the renewal's parts but the last: the last still dates from before the renewal
  await rm(join(o.routesDir, '..', 'live', A), { recursive: true });
  await install(join(o.routesDir, '..'), A, ctx.pairs.a2);
  const last = parts.at(-1)!;
  const old = await stat(last);
  await writeFile(parts[0]!, 'a part of the renewal\n');
  // file times move by the kernel's tick: the first part dated plainly after the renewal, the last before it
  await utimes(parts[0]!, old.atime, new Date(Date.now() + 60_000));
  await utimes(last, old.atime, new Date(old.mtimeMs - 60_000));
  await syncSniFiles(o);
  assert.ok(await holds(o, A, ctx.pairs.a2), 'every part made again from the renewal');
});

s('a renewal while its entry is read is not hidden: the entry made is dated back, and the next sync makes it from the renewal', async (ctx) => {
  let renewDuringRead: (() => Promise<void>) | null = null;
  const read = async (path: string) => {
    const bytes = await readFile(path);
    // once both files are read: a renewal between them would only make a pair the map refuses
    const renew = path.endsWith('privkey.pem') ? renewDuringRead : null;
    if (renew) {
      renewDuringRead = null;
      await renew();
    }
    return bytes;
  };
  const o = await box(ctx, 'race', {}, [], read);
  const root = join(o.routesDir, '..');
  await writeFile(join(o.routesDir, `relay-app-${A}.conf`), `${A} 4101;\n`);
  await install(root, A, ctx.pairs.a);
  renewDuringRead = async () => {
    await rm(join(root, 'live', A), { recursive: true });
    await install(root, A, ctx.pairs.a2);
  };
  await syncSniFiles(o);
  assert.ok(await holds(o, A, ctx.pairs.a), 'this sync wrote what it read');
  await syncSniFiles(o);
  assert.ok(await holds(o, A, ctx.pairs.a2), 'the next one the renewal');
});

s('no usable fallback stops the sync, naming it', async (ctx) => {
  const o = await box(ctx, 'fallback', { [A]: ctx.pairs.a });
  const broken = { fullchain: ctx.pairs.fallback.fullchain, privkey: ctx.pairs.stranger.privkey };
  const failed = await syncSniFiles({ ...o, fallback: broken }).then(() => '', (error: Error) => error.message);
  assert.is(failed, `certificate map: no fallback certificate at ${ctx.pairs.fallback.fullchain}`);
});

s.run();
