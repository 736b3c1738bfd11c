import { createHash } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileBundle, readBundle } from '../../../lib/code-cache.ts';

const s = suite<{ dir: string }>('code cache of the bundle', { dir: '' });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-code-cache-'));
});
s.after.each(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const bundleOf = (answer: number) =>
  `const { basename } = require('node:path');
   function strict() { return this === undefined; }
   module.exports.answer = () => ({ answer: ${answer}, file: basename(__filename), url: RELAY_IMPORT_META_URL, code: RELAY_BUNDLE_SHA256, strict: strict() });
   module.exports.load = (specifier) => RELAY_IMPORT(specifier);`;

/** Compiles `source` with the cache in `dir`, runs it, and returns what it exported. */
function load(dir: string, source: string, key = sha256(source)) {
  const filename = join(dir, 'server.mjs');
  const compiled = compileBundle(source, { key, cacheFile: join(dir, 'server.mjs.code-cache'), filename });
  const module = { exports: {} as { answer?: () => unknown; load?: (specifier: string) => Promise<unknown> } };
  compiled.run(module.exports, createRequire(filename), module, filename, dir, 'file:///x/server.mjs', (specifier) => import(specifier), 'b'.repeat(64));
  return { compiled, answer: module.exports.answer!(), load: module.exports.load! };
}

s('runs the bundle as strict CommonJS with the launcher file, import.meta.url and its own SHA-256', ({ dir }) => {
  const { answer } = load(dir, bundleOf(42));
  assert.equal(answer, { answer: 42, file: 'server.mjs', url: 'file:///x/server.mjs', code: 'b'.repeat(64), strict: true });
});

s('without a cache it is stale; saved, the next compile takes the cache', async ({ dir }) => {
  const first = load(dir, bundleOf(1));
  assert.ok(first.compiled.stale);
  assert.ok(first.compiled.save());
  const file = await readFile(join(dir, 'server.mjs.code-cache'));
  assert.is(file.toString('latin1', 0, 65), `${sha256(bundleOf(1))}\n`);
  const second = load(dir, bundleOf(1));
  assert.is(second.compiled.stale, false);
  assert.equal(second.answer, first.answer);
});

s('from the cache, the bundle imports ES modules through the import() it is handed', async ({ dir }) => {
  load(dir, bundleOf(7)).compiled.save();
  const cached = load(dir, bundleOf(7));
  assert.is(cached.compiled.stale, false);
  const path = (await cached.load('node:path')) as typeof import('node:path');
  assert.is(path.basename('/a/b.txt'), 'b.txt');
});

s('a cache made for another bundle is not used, even of the same length', async ({ dir }) => {
  load(dir, bundleOf(1)).compiled.save();
  const other = load(dir, bundleOf(2));
  assert.ok(other.compiled.stale);
  assert.is((other.answer as { answer: number }).answer, 2);
});

s('a cache that V8 refuses (damaged bytes under the right header) is stale, and the bundle still runs', async ({ dir }) => {
  const source = bundleOf(3);
  await writeFile(join(dir, 'server.mjs.code-cache'), Buffer.concat([Buffer.from(`${sha256(source)}\n`), Buffer.alloc(4096, 7)]));
  const { compiled, answer } = load(dir, source);
  assert.ok(compiled.stale);
  assert.is((answer as { answer: number }).answer, 3);
});

s('a cache file others may write is not trusted', async ({ dir }) => {
  load(dir, bundleOf(4)).compiled.save();
  await chmod(join(dir, 'server.mjs.code-cache'), 0o666);
  assert.ok(load(dir, bundleOf(4)).compiled.stale);
});

s('a cache that cannot be written is no error and leaves no temporary file', async ({ dir }) => {
  const source = bundleOf(5);
  const compiled = compileBundle(source, { key: sha256(source), cacheFile: join(dir, 'missing', 'server.mjs.code-cache'), filename: join(dir, 'server.mjs') });
  assert.is(compiled.save(), false);
  assert.equal(await readdir(dir), []);
});

s('a file already at the temporary name is neither written through nor removed', async ({ dir }) => {
  const source = bundleOf(8);
  const planted = join(dir, `server.mjs.code-cache.${process.pid}.tmp`);
  await writeFile(planted, 'not ours');
  assert.is(load(dir, source).compiled.save(), false);
  assert.is(await readFile(planted, 'utf8'), 'not ours');
});

s('the key must be a SHA-256', ({ dir }) => {
  assert.throws(() => load(dir, bundleOf(6), 'not-a-hash'), /SHA-256/);
});

s('the bundle file is read only when it is the one the launcher was built for, even a swap of the same length', async ({ dir }) => {
  const file = join(dir, 'server.bundle.cjs');
  await writeFile(file, bundleOf(1));
  assert.is(readBundle(file, sha256(bundleOf(1))), bundleOf(1));
  await writeFile(file, bundleOf(2));
  assert.throws(() => readBundle(file, sha256(bundleOf(1))), /is not the bundle its launcher was built with/);
});

s('the bundle text is the same whether it is plain ASCII or holds other characters', async ({ dir }) => {
  const file = join(dir, 'server.bundle.cjs');
  for (const text of [bundleOf(1), `${bundleOf(1)}\n// ünïcödé ✓`]) {
    await writeFile(file, text);
    assert.is(readBundle(file, sha256(text)), text);
  }
});

s.run();
