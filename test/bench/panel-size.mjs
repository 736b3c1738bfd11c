// The admin client's first load: index.html plus the files it references, raw, gzip and brotli.
// The panel's budget is 100 KiB compressed for the whole first load. `node test/bench/panel-size.mjs`
// prints it alone (after `npm run build`).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';

export const PANEL_BUDGET_BYTES = 100 * 1024;

export async function panelFirstLoad(dir) {
  const html = await readFile(join(dir, 'index.html'));
  const referenced = [...html.toString().matchAll(/(?:src|href)="\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  const files = [{ name: 'index.html', body: html }];
  for (const name of referenced) files.push({ name, body: await readFile(join(dir, name)) });
  const sized = files.map(({ name, body }) => ({
    name,
    raw: body.length,
    gzip: gzipSync(body, { level: 6 }).length,
    brotli: brotliCompressSync(body).length,
  }));
  const total = (key) => sized.reduce((sum, f) => sum + f[key], 0);
  return { dir, files: sized, raw: total('raw'), gzip: total('gzip'), brotli: total('brotli'), budget: PANEL_BUDGET_BYTES };
}

export function describePanelLoad(load) {
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  return `${kib(load.gzip)} gzip / ${kib(load.brotli)} brotli (${kib(load.raw)} raw; ${load.files.map((f) => f.name).join(', ')})`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = fileURLToPath(new URL('../../dist/panel', import.meta.url));
  console.log(`panel first load: ${describePanelLoad(await panelFirstLoad(dir))}`);
}
