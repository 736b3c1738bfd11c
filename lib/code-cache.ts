// A V8 code cache for the bundle (Node 20 has no module.enableCompileCache). Compiling the 1.4 MB
// bundle's top level costs about 85 ms of a cold start, and the functions the start-up runs are
// compiled again on every start; V8 can instead take the bytecode it made last time. The cache is
// only used for the exact bundle it was made from: its header is the bundle's SHA-256, set at build
// time, and V8 itself refuses data from another Node version or other V8 flags.
import { createRequire } from 'node:module';
import { wrapBundle, type BundleFunction } from './bundle-parameters.ts';
import { cacheFileBytes, readCacheFile } from './code-cache-file.ts';

// Required, not imported: an ES module import of node:fs builds its ESM facade, which reads every
// export, fs.ReadStream's lazy getter included (it loads fs streams: about 5 ms of a cold start).
const require = createRequire(import.meta.url);
const fs = require('node:fs') as typeof import('node:fs');
const { readFileSync, renameSync, rmSync, writeFileSync } = fs;
const vm = require('node:vm') as typeof import('node:vm');
const { createHash } = require('node:crypto') as typeof import('node:crypto');
const { isAscii } = require('node:buffer') as typeof import('node:buffer');

export interface CompiledBundle {
  run: BundleFunction;
  /** Whether the cache file was missing, made for another bundle, or refused by V8. */
  stale: boolean;
  /** Writes the cache of everything compiled so far; false when it could not (a read-only install). */
  save(): boolean;
}

/**
 * Written beside and renamed into place: a reader never sees half a file. The temporary file is
 * created exclusively (`wx`), so a name planted in a shared directory is not written through.
 */
function writeCache(file: string, key: string, data: Buffer): boolean {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, cacheFileBytes(key, data), { mode: 0o644, flag: 'wx' });
    renameSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(temp, { force: true });
    return false;
  }
}

/**
 * The bundle's source from `file`, refused unless its SHA-256 is `key` (the one its launcher was
 * built with): a cache made for `key` must never run against other source, and V8 itself only
 * compares the source's length.
 */
export function readBundle(file: string, key: string): string {
  const bytes = readFileSync(file);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== key) throw new Error(`${file} is not the bundle its launcher was built with (SHA-256 ${actual}, expected ${key}): build again, or unpack the whole release again`);
  // esbuild writes ASCII (its default charset escapes the rest), where latin1 is the same text and
  // decodes in about two thirds of UTF-8's time (2 MB: 9 against 14 ms of CPU on the bench machine)
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * Compiles the bundle `source` (a CommonJS body) as a function of BUNDLE_PARAMETERS, with the code
 * cache in `cacheFile` when it was made for `key` (the source's SHA-256, hex).
 */
export function compileBundle(source: string, options: { key: string; cacheFile: string; filename: string }): CompiledBundle {
  const { key, cacheFile, filename } = options;
  if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('code cache key must be a SHA-256 in hex');
  const cachedData = readCacheFile(fs, cacheFile, key);
  const script = new vm.Script(wrapBundle(source), { filename, cachedData });
  return {
    run: script.runInThisContext() as BundleFunction,
    stale: cachedData === undefined || script.cachedDataRejected === true,
    save: () => writeCache(cacheFile, key, script.createCachedData()),
  };
}
