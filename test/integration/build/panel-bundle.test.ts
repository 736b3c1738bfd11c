import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error plain JS build script
import { bundlePanel } from '../../../build/panel.mjs';
// @ts-expect-error plain JS bench helper
import { panelFirstLoad } from '../../bench/panel-size.mjs';

const s = suite<{ dir: string }>('panel client bundle', { dir: '' });

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-panel-bundle-'));
});
s.after(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

s('hashed, minified files and an index.html that references exactly them', async ({ dir }) => {
  const out = join(dir, 'panel');
  await bundlePanel({ outdir: out, quiet: true });
  assert.equal((await readdir(out)).sort(), ['assets', 'index.html']);
  const files = (await readdir(join(out, 'assets'))).sort();
  const script = files.find((f) => f.endsWith('.js'))!;
  const style = files.find((f) => f.endsWith('.css'))!;
  assert.equal(files, [style, `${style}.br`, `${style}.gz`, script, `${script}.br`, `${script}.gz`].sort());
  assert.match(script, /^app-[A-Z0-9]{8}\.js$/);
  assert.match(style, /^app-[A-Z0-9]{8}\.css$/);
  const html = await readFile(join(out, 'index.html'), 'utf8');
  assert.ok(html.includes(`<script type="module" src="/assets/${script}"></script>`));
  assert.ok(html.includes(`<link rel="stylesheet" href="/assets/${style}">`));
  assert.not.match(html, /<!--(script|style)-->/);
  const js = await readFile(join(out, 'assets', script), 'utf8');
  assert.ok(js.split('\n').length < 20, 'minified');
  // The precompressed siblings hold the same bytes.
  assert.is(brotliDecompressSync(await readFile(join(out, 'assets', `${script}.br`))).toString(), js);
  assert.is(gunzipSync(await readFile(join(out, 'assets', `${script}.gz`))).toString(), js);

  // A rebuild of the same sources gives the same names; the old output is replaced, not kept.
  await bundlePanel({ outdir: out, quiet: true });
  assert.equal((await readdir(join(out, 'assets'))).sort(), files);
});

s('the first load fits the budget of 100 KiB compressed', async ({ dir }) => {
  const out = join(dir, 'budget');
  await bundlePanel({ outdir: out, quiet: true });
  const load = await panelFirstLoad(out);
  assert.equal(load.files.map((f: { name: string }) => f.name).length, 3);
  assert.ok(load.gzip > 1000 && load.gzip <= 100 * 1024, `gzip ${load.gzip}`);
  assert.ok(load.brotli <= load.gzip + 1024);
});

s.run();
