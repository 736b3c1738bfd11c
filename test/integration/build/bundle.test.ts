import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTimeout } from '../../helpers/timeout.ts';
// @ts-expect-error plain JS build script
import { bundle, bundleFileOf } from '../../../build/build.mjs';
import { writeFreshConfig, writeOnboardedConfig } from '../../helpers/onboarded-config.ts';
import { startBundle } from '../../helpers/listening-server.ts';

const s = suite<{ dir: string; outfile: string }>('bundle', { dir: '', outfile: '' });

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-bundle-'));
  ctx.outfile = join(ctx.dir, 'server.mjs');
  await bundle({ outfile: ctx.outfile, quiet: true });
});
s.after(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

const exited = (child: ChildProcess) => new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));

s('the built file starts in production, answers /api/health, and exits 0 on SIGTERM', ({ dir, outfile }) =>
  withTimeout('bundle run', 15_000, async () => {
    const configFile = await writeFreshConfig(dir, { file: 'prod.json', dataDir: join(dir, 'prod-data') });
    const { child, url, exited: done } = await startBundle(outfile, ['--config', configFile], { NODE_ENV: 'production' }, dir);
    try {
      const health = await fetch(`${url}/api/health`);
      assert.is(health.status, 200);
      assert.equal(await health.json(), { status: 'ok' });
      assert.is((await fetch(`${url}/api/tunnels`)).status, 403);
    } finally {
      child.kill('SIGTERM');
    }
    assert.is((await done).code, 0);
  }),
);

s('a start loads no builtin it only needs later: https, tls, readline, worker_threads', ({ dir, outfile }) =>
  withTimeout('bundle builtins', 15_000, async () => {
    // the list as it stands when the server says it listens, before any request
    const preload = join(dir, 'module-list.cjs');
    const listFile = join(dir, 'modules.txt');
    await writeFile(preload, `const { writeFileSync } = require('node:fs');
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (String(chunk).includes('listening on')) writeFileSync(${JSON.stringify(listFile)}, process.moduleLoadList.join('\\n'));
  return write(chunk, ...rest);
};`);
    const configFile = await writeFreshConfig(dir, { file: 'builtins.json', dataDir: join(dir, 'builtins-data') });
    const { child, exited: done } = await startBundle(outfile, ['--config', configFile], { NODE_ENV: 'production', NODE_OPTIONS: `--require=${preload}` }, dir);
    child.kill('SIGTERM');
    assert.is((await done).code, 0);
    const loaded = new Set((await readFile(listFile, 'utf8')).split('\n').filter((line) => line.startsWith('NativeModule ')).map((line) => line.slice('NativeModule '.length)));
    assert.ok(loaded.has('http'), 'the list was taken in the server');
    for (const later of ['https', 'tls', 'readline', 'worker_threads']) assert.not.ok(loaded.has(later), `${later} is loaded at start`);
  }),
);

/** Polls until `file` exists; its stat. */
async function whenWritten(file: string) {
  for (;;) {
    const found = await stat(file).catch(() => undefined);
    if (found) return found;
    await new Promise((ok) => setTimeout(ok, 20));
  }
}

s('the code cache is written once: after the first answer (request path included), or a few seconds after listening without one', ({ dir, outfile }) =>
  withTimeout('code cache', 30_000, async () => {
    const configFile = await writeFreshConfig(dir, { file: 'cache.json', dataDir: join(dir, 'cache-data') });
    // the idle run's window short, the answered run's long: a loaded machine's slow first answer cannot
    // lose the race to the idle write
    const idleMs = (request: boolean) => (request ? 120_000 : 3000);
    const run = async (cacheFile: string, request: boolean) => {
      const { child, url, exited: done } = await startBundle(outfile, ['--config', configFile], { NODE_ENV: 'production', RELAY_PANEL_CODE_CACHE: cacheFile, RELAY_PANEL_CODE_CACHE_IDLE_MS: String(idleMs(request)) }, dir);
      try {
        if (request) assert.is((await fetch(`${url}/api/health`)).status, 200);
        else assert.is(await stat(cacheFile).catch(() => undefined), undefined, 'written when the server listens, before any answer');
        const written = await whenWritten(cacheFile);
        // a request after the write, then past the idle run's window: no second write
        assert.is((await fetch(`${url}/api/health`)).status, 200);
        await new Promise((ok) => setTimeout(ok, idleMs(false) + 500));
        const after = await stat(cacheFile);
        assert.equal([after.ino, after.mtimeMs], [written.ino, written.mtimeMs], 'written twice in one start');
        return written.size;
      } finally {
        child.kill('SIGTERM');
        await done;
      }
    };
    const idle = await run(join(dir, 'idle.code-cache'), false);
    const answered = await run(join(dir, 'answered.code-cache'), true);
    // the functions that answering /api/health compiled are in the second cache too
    assert.ok(answered > idle + 4096, `cache after the first answer ${answered} bytes, after listening idle ${idle}`);
  }),
);

s('a bundle swapped beside its launcher (same length) is refused before any of it runs', ({ dir, outfile }) =>
  withTimeout('swapped bundle', 15_000, async () => {
    const swapped = join(dir, 'swapped');
    await mkdir(swapped);
    const launcher = join(swapped, 'server.mjs');
    await copyFile(outfile, launcher);
    // the same length, the help text's first word in capitals
    const source = await readFile(bundleFileOf(outfile), 'latin1');
    assert.ok(source.includes('usage: relay-panel'));
    await writeFile(bundleFileOf(launcher), source.replace('usage: relay-panel', 'USAGE: relay-panel'), 'latin1');
    const child = spawn(process.execPath, [launcher, 'help'], { cwd: swapped, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (c) => (output += c));
    child.stderr!.on('data', (c) => (output += c));
    assert.is.not(await exited(child), 0);
    assert.match(output, 'is not the bundle its launcher was built with');
    assert.not.match(output.toLowerCase(), 'usage: relay-panel');
  }),
);

s('with no configuration it creates the sandbox, serves health and the built client, and gates management routes (FRESH)', ({ dir, outfile }) =>
  withTimeout('sandbox run', 15_000, async () => {
    const cwd = join(dir, 'fresh-clone');
    await mkdir(join(cwd, 'dist', 'panel'), { recursive: true });
    await writeFile(join(cwd, 'dist', 'panel', 'index.html'), '<html>the built panel client</html>');
    const { child, url, exited: done } = await startBundle(outfile, [], { NODE_ENV: '', PORT: '0' }, cwd);
    try {
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.is((await fetch(`${url}/api/health`)).status, 200);
      const tunnels = await fetch(`${url}/api/tunnels`);
      assert.is(tunnels.status, 503);
      assert.equal(await tunnels.json(), { error: 'Onboarding not complete', onboardingStatus: 'FRESH' });
      assert.is(await (await fetch(`${url}/tunnels`)).text(), '<html>the built panel client</html>');
      const config = JSON.parse(await readFile(join(cwd, '.relay-sandbox', 'config.json'), 'utf8'));
      assert.is(config.staticDir, join(cwd, 'dist', 'panel'));
    } finally {
      child.kill('SIGTERM');
    }
    assert.is((await done).code, 0);
  }),
);

s('an invalid configuration stops start-up naming the file and the field', ({ dir, outfile }) =>
  withTimeout('bad config', 15_000, async () => {
    const configFile = join(dir, 'bad.json');
    await writeFile(configFile, JSON.stringify({ ip: '', domain: null, email: null, dataDir: join(dir, 'x'), onboarding: { status: 'FRESH' } }));
    const child = spawn(process.execPath, [outfile, '--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (c) => (err += c));
    assert.is(await exited(child), 1);
    assert.match(err, configFile);
    assert.match(err, 'ip: ');
  }),
);

s('the bundle hashes portal passwords on its inlined worker thread (bcrypt $2b$12, no file beside it)', ({ dir, outfile }) =>
  withTimeout('bundle users', 60_000, async () => {
    const dataDir = join(dir, 'users-data');
    const configFile = await writeOnboardedConfig(dir, { file: 'users.json', dataDir });
    const { child, url, exited: done } = await startBundle(outfile, ['--config', configFile], { NODE_ENV: 'production' }, dir);
    const admin = { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-dn': 'CN=admin', 'x-ssl-client-serial': '1000', 'content-type': 'application/json' };
    try {
      const body = JSON.stringify({ username: 'alice', displayname: 'Alice', email: 'alice@example.test', password: 'alice-password' });
      let created = false;
      const create = fetch(`${url}/api/users`, { method: 'POST', headers: admin, body }).then((r) => ((created = true), r));
      // the event loop stays free while the hash runs: health answers before the create does
      const health = await fetch(`${url}/api/health`);
      assert.is(health.status, 200);
      assert.not.ok(created, 'health waited for the hash');
      const res = await create;
      assert.is(res.status, 201, await res.clone().text());
      const text = await readFile(join(dataDir, 'system', 'authelia', 'users_database.yml'), 'utf8');
      const hash = text.match(/password: (\S+)/)![1]!;
      assert.match(hash, /^\$2b\$12\$/);
      assert.ok(await bcrypt.compare('alice-password', hash));
    } finally {
      child.kill('SIGTERM');
    }
    assert.is((await done).code, 0);
  }),
);

s.run();
