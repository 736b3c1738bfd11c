// Builds what `npm pack` ships (package.json "exports" and "files"): dist-lib/, the ES modules and
// .d.ts files of lib/testing.ts, lib/http/index.ts and every handler, compiled file by file by tsc
// (tsconfig.lib.json), plus the plain .mjs files they load at run time (the bcrypt worker).
// The server bundle (build/build.mjs) is a separate output: dist/ is left alone.
import { execFile } from 'node:child_process';
import { cp, readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TSC } from './typescript-compiler.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const LIBRARY_DIR = join(root, 'dist-lib');

/** Every .mjs source under `dir`: loaded by URL (new Worker(new URL(...))), so tsc does not see them. */
async function plainModules(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.mjs')).map((e) => join(e.parentPath, e.name));
}

export async function buildLibrary({ quiet = false } = {}) {
  const started = Date.now();
  // a clean directory: a deleted source must not leave its old output in the package
  await rm(LIBRARY_DIR, { recursive: true, force: true });
  await promisify(execFile)(process.execPath, [TSC, '-p', join(root, 'tsconfig.lib.json')], { cwd: root });
  for (const dir of ['lib', 'handlers']) {
    for (const file of await plainModules(join(root, dir))) await cp(file, join(LIBRARY_DIR, relative(root, file)));
  }
  if (!quiet) console.log(`built ${relative(root, LIBRARY_DIR)}/ (library: testing, http, handlers) in ${Date.now() - started} ms`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildLibrary();
