// Test runner: loads uvu suites from TypeScript sources and prints a closing line CI can read.
// uvu has no per-test timeout and exits 0 when a pending promise empties the event loop, so this
// runner marks the run failed unless every queued suite really finished.
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import './helpers/register.mjs';

const root = resolve(new URL('.', import.meta.url).pathname);
const args = process.argv.slice(2);
const filters = args.filter((a) => !a.startsWith('--'));
const groups = filters.length ? filters : ['unit'];

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const files = [];
for (const g of groups) {
  const target = resolve(root, g);
  files.push(...(statSync(target).isDirectory() ? findTests(target) : [target]));
}

globalThis.UVU_DEFER = 1;
globalThis.UVU_QUEUE = [];
let finished = false;
process.on('exit', (code) => {
  if (!finished) {
    console.error('\ntest run ended before every suite finished (a promise never settled?)');
    process.exitCode = 1;
  }
});

let passed = 0, failed = 0, skipped = 0;
const started = Date.now();
for (const [index, file] of files.entries()) {
  globalThis.UVU_INDEX = index;
  globalThis.UVU_QUEUE.push([relative(root, file)]);
  await import(pathToFileURL(file).href);
}
for (const group of globalThis.UVU_QUEUE) {
  const name = group.shift();
  process.stdout.write(`\n${name}\n`);
  for (const runSuite of group) {
    const [errors, ran, skips, total] = await runSuite();
    passed += ran; skipped += skips; failed += total - ran;
    if (errors !== true) process.stdout.write(`\n${errors}\n`);
  }
}
finished = true;
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`\n${files.length} files in ${seconds}s`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 || files.length === 0 ? 1 : 0;
