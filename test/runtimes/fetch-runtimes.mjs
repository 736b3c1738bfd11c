// Fetches the runtimes of the runtime tests (Bun, Deno, miniflare with workerd) into a cache of
// their own: test/runtimes/tools/package.json pins them exactly and its package-lock.json pins
// everything they pull in, installed by `npm ci` into .cache/runtimes (git-ignored). They are not
// in the project's package.json: they are 345 MB that the panel and its tests on Node never run.
// A second run finds the cache stamped with the lockfile's hash and fetches nothing; a binary that
// cannot be had fails the run with its name and path, never a skip. Plain JavaScript (types in
// fetch-runtimes.d.mts): `npm run bench` imports it without a TypeScript hook.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const TOOLS_DIR = fileURLToPath(new URL('./tools', import.meta.url));
// RELAY_RUNTIMES_CACHE: one cache for several clones (a CI machine that clones afresh each run)
export const CACHE_DIR = process.env.RELAY_RUNTIMES_CACHE || join(root, '.cache', 'runtimes');

/** What the cache must hold once fetched, relative to it: the binaries and miniflare's module. */
export const FETCHED = {
  bun: 'node_modules/.bin/bun',
  deno: 'node_modules/.bin/deno',
  workerd: 'node_modules/.bin/workerd',
  miniflare: 'node_modules/miniflare/package.json',
  // the bench's load generator: 6.7 MB the panel's own tests never load
  autocannon: 'node_modules/autocannon/package.json',
};

const STAMP = '.fetched-lock-sha256';
// a version range would let the cache hold something else than the lockfile says was tested
const EXACT = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/** The pinned versions of the manifest's dependencies; a range, or one of FETCHED not pinned, throws. */
export function pinnedVersions(manifest) {
  const dependencies = manifest.dependencies ?? {};
  const loose = Object.entries(dependencies).filter(([, version]) => !EXACT.test(version));
  const absent = Object.keys(FETCHED).filter((name) => !(name in dependencies));
  if (loose.length || absent.length) {
    throw new Error(
      `runtimes: test/runtimes/tools/package.json must pin every runtime to an exact version;${loose.map(([name, version]) => ` ${name} is '${version}'`).join(',')}${absent.length ? ` not pinned: ${absent.join(', ')}` : ''}`,
    );
  }
  return dependencies;
}

/** `npm ci` in `dir` (which holds the manifest and its lockfile): exactly what the lockfile pins. */
async function npmCi(dir) {
  await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, maxBuffer: 64 << 20, env: { ...process.env, npm_config_update_notifier: 'false' } });
}

const missingIn = (dir) => Object.entries(FETCHED).filter(([, path]) => !existsSync(join(dir, path)));

/**
 * Makes sure `cacheDir` holds the runtimes `toolsDir`'s lockfile pins: fetched with `install` (npm
 * ci) unless the cache's stamp names this lockfile already. Returns {dir, fetched}. The install goes
 * to a directory beside the cache, renamed over it when complete, so a run stopped halfway, or two
 * test files fetching at once, never leave a cache that looks complete and is not.
 */
export async function ensureRuntimes({ toolsDir = TOOLS_DIR, cacheDir = CACHE_DIR, install = npmCi, log = (line) => console.log(line) } = {}) {
  const manifest = await readFile(join(toolsDir, 'package.json'), 'utf8');
  const versions = pinnedVersions(JSON.parse(manifest));
  const lockFile = join(toolsDir, 'package-lock.json');
  if (!existsSync(lockFile)) throw new Error(`runtimes: ${lockFile} is missing; the runtimes are installed from their lockfile only (\`npm install --package-lock-only\` in ${toolsDir} makes it)`);
  const lock = await readFile(lockFile, 'utf8');
  const stamp = createHash('sha256').update(manifest).update(lock).digest('hex');
  const current = await readFile(join(cacheDir, STAMP), 'utf8').catch(() => '');
  if (current === stamp && missingIn(cacheDir).length === 0) return { dir: cacheDir, fetched: false };

  const partial = `${cacheDir}.partial-${process.pid}`;
  const started = Date.now();
  log(`runtimes: fetching ${Object.entries(versions).map(([name, version]) => `${name} ${version}`).join(', ')} into ${cacheDir} (npm ci)`);
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    await copyFile(join(toolsDir, 'package.json'), join(partial, 'package.json'));
    await copyFile(lockFile, join(partial, 'package-lock.json'));
    try {
      await install(partial);
    } catch (error) {
      const said = `${error.stderr ?? ''}`.trim() || error.message;
      throw new Error(`runtimes: npm ci of test/runtimes/tools failed, so ${missingIn(partial).map(([name]) => name).join(', ') || 'the runtimes'} cannot be had:\n${said}`);
    }
    const missing = missingIn(partial);
    if (missing.length) {
      throw new Error(`runtimes: after npm ci of test/runtimes/tools these are still missing: ${missing.map(([name, path]) => `${name} (${path})`).join(', ')}`);
    }
    await writeFile(join(partial, STAMP), stamp);
    // another process may have finished the same fetch meanwhile, and be using it
    if ((await readFile(join(cacheDir, STAMP), 'utf8').catch(() => '')) !== stamp) {
      await rm(cacheDir, { recursive: true, force: true });
      await rename(partial, cacheDir);
    }
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
  log(`runtimes: fetched in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { dir: cacheDir, fetched: true };
}
