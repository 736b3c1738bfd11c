import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureRuntimes, FETCHED, TOOLS_DIR } from '../../runtimes/fetch-runtimes.mjs';

// The runtime tests' fetcher (test/runtimes/fetch-runtimes.mjs) with a fake installer in place of
// npm ci: what it refuses, loudly, and that a complete fetch is cached.

const s = suite<{ dir: string; tools: string; cache: string }>('runtime fetcher: pinned, cached, loud when a binary cannot be had', { dir: '', tools: '', cache: '' });

const manifest = async () => JSON.parse(await readFile(join(TOOLS_DIR, 'package.json'), 'utf8'));
const quiet = () => {};

/** An installer that writes only `names` of FETCHED into the directory it installs into. */
const installing =
  (names: string[], calls: string[] = []) =>
  async (dir: string) => {
    calls.push(dir);
    for (const name of names) {
      const file = join(dir, FETCHED[name as keyof typeof FETCHED]);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, '');
    }
  };

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-fetcher-'));
  ctx.tools = join(ctx.dir, 'tools');
  ctx.cache = join(ctx.dir, 'cache');
  await mkdir(ctx.tools);
  await writeFile(join(ctx.tools, 'package.json'), JSON.stringify(await manifest()));
  await writeFile(join(ctx.tools, 'package-lock.json'), await readFile(join(TOOLS_DIR, 'package-lock.json')));
});
s.after.each(async ({ dir }) => rm(dir, { recursive: true, force: true }));

s('the real manifest pins each runtime exactly and has its lockfile', async () => {
  const { dependencies } = await manifest();
  assert.equal(Object.keys(dependencies).sort(), ['autocannon', 'bun', 'deno', 'miniflare', 'workerd']);
  for (const version of Object.values(dependencies) as string[]) assert.match(version, /^\d+\.\d+\.\d+$/);
  const lock = JSON.parse(await readFile(join(TOOLS_DIR, 'package-lock.json'), 'utf8'));
  assert.is(lock.packages['node_modules/bun'].version, dependencies.bun);
});

s('a failing installer fails the fetch with what is missing and what npm said; nothing is cached', async ({ tools, cache }) => {
  const failing = async () => {
    throw Object.assign(new Error('Command failed: npm ci'), { stderr: 'npm error 404 Not Found - GET bun-1.4.5.tgz' });
  };
  const error = await ensureRuntimes({ toolsDir: tools, cacheDir: cache, install: failing, log: quiet }).then(() => null, (e: Error) => e);
  assert.ok(error, 'the fetch must fail');
  assert.match(error!.message, /npm ci of test\/runtimes\/tools failed, so bun, deno, workerd, miniflare, autocannon cannot be had/);
  assert.match(error!.message, /404 Not Found - GET bun-1\.4\.5\.tgz/);
  assert.not.ok(existsSync(cache), 'no cache left that looks fetched');
});

s('an install that leaves a binary out fails naming it, and the next run tries again', async ({ tools, cache }) => {
  const calls: string[] = [];
  const error = await ensureRuntimes({ toolsDir: tools, cacheDir: cache, install: installing(['bun', 'workerd', 'miniflare'], calls), log: quiet }).then(() => null, (e: Error) => e);
  assert.match(error?.message ?? 'resolved', /still missing: deno \(node_modules\/\.bin\/deno\)/);
  await ensureRuntimes({ toolsDir: tools, cacheDir: cache, install: installing(Object.keys(FETCHED), calls), log: quiet });
  assert.is(calls.length, 2);
});

s('a runtime given as a range, or not pinned at all, is refused before anything is installed', async ({ tools, cache }) => {
  const calls: string[] = [];
  const { dependencies } = await manifest();
  await writeFile(join(tools, 'package.json'), JSON.stringify({ dependencies: { ...dependencies, bun: '^1.4.5' } }));
  const ranged = await ensureRuntimes({ toolsDir: tools, cacheDir: cache, install: installing(Object.keys(FETCHED), calls), log: quiet }).then(() => null, (e: Error) => e);
  assert.match(ranged?.message ?? 'resolved', /must pin every runtime to an exact version; bun is '\^1\.4\.5'/);
  const { deno: _, ...withoutDeno } = dependencies;
  await writeFile(join(tools, 'package.json'), JSON.stringify({ dependencies: withoutDeno }));
  const absent = await ensureRuntimes({ toolsDir: tools, cacheDir: cache, install: installing(Object.keys(FETCHED), calls), log: quiet }).then(() => null, (e: Error) => e);
  assert.match(absent?.message ?? 'resolved', /not pinned: deno/);
  assert.is(calls.length, 0);
});

s('without its lockfile nothing is installed', async ({ tools, cache }) => {
  await rm(join(tools, 'package-lock.json'));
  const error = await ensureRuntimes({ toolsDir: tools, cacheDir: cache, install: installing(Object.keys(FETCHED)), log: quiet }).then(() => null, (e: Error) => e);
  assert.match(error?.message ?? 'resolved', /package-lock\.json is missing/);
});

s('a complete fetch is cached: the second run installs nothing; a changed lockfile fetches again', async ({ tools, cache }) => {
  const calls: string[] = [];
  const first = await ensureRuntimes({ toolsDir: tools, cacheDir: cache, install: installing(Object.keys(FETCHED), calls), log: quiet });
  assert.equal(first, { dir: cache, fetched: true });
  assert.ok(existsSync(join(cache, FETCHED.bun)));
  const second = await ensureRuntimes({ toolsDir: tools, cacheDir: cache, install: installing(Object.keys(FETCHED), calls), log: quiet });
  assert.equal(second, { dir: cache, fetched: false });
  await writeFile(join(tools, 'package-lock.json'), `${await readFile(join(tools, 'package-lock.json'), 'utf8')}\n`);
  const third = await ensureRuntimes({ toolsDir: tools, cacheDir: cache, install: installing(Object.keys(FETCHED), calls), log: quiet });
  assert.is(third.fetched, true);
  assert.is(calls.length, 2);
});

s.run();
