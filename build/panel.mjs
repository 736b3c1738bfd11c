// Bundles the admin client (panel/) into dist/panel: index.html, and the hashed, minified files it
// references under assets/ (one prefix, so a proxy can serve them without a client certificate to
// the public /invite/<token> page and cache them as immutable). The server serves this folder as
// `staticDir`.
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
export const PANEL_OUT = `${root}dist/panel`;
const ASSETS = 'assets';

export async function bundlePanel({ outdir = PANEL_OUT, quiet = false } = {}) {
  const started = Date.now();
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: { app: `${root}panel/src/main.tsx` },
    outdir: `${outdir}/${ASSETS}`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    metafile: true,
    logLevel: quiet ? 'error' : 'warning',
  });
  const files = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const script = files.find((f) => f.endsWith('.js'));
  const style = files.find((f) => f.endsWith('.css'));
  if (!script) throw new Error('panel build produced no script');
  const template = await readFile(`${root}panel/index.html`, 'utf8');
  const html = template
    .replace('<!--style-->', style ? `<link rel="stylesheet" href="/${ASSETS}/${style}">` : '')
    .replace('<!--script-->', `<script type="module" src="/${ASSETS}/${script}"></script>`);
  await mkdir(outdir, { recursive: true });
  await writeFile(`${outdir}/index.html`, html);
  // Compressed once here at the highest levels; the server sends a sibling the browser accepts.
  for (const name of files) {
    const body = await readFile(`${outdir}/${ASSETS}/${name}`);
    await writeFile(`${outdir}/${ASSETS}/${name}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    await writeFile(`${outdir}/${ASSETS}/${name}.gz`, gzipSync(body, { level: 9 }));
  }
  const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0) + html.length;
  if (!quiet) console.log(`built ${outdir} (${files.join(', ')}, index.html; ${(bytes / 1024).toFixed(1)} KiB) in ${Date.now() - started} ms`);
  // inputs: what it was made from (paths relative to the working directory), for build/build-stamp.mjs
  return { outdir, files: [...files.map((f) => `${ASSETS}/${f}`), 'index.html'], inputs: Object.keys(result.metafile.inputs) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await bundlePanel();
