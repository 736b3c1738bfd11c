import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTimeout } from '../../helpers/timeout.ts';
// @ts-expect-error plain JS build script
import { bundle } from '../../../build/build.mjs';

const s = suite<{ dir: string; outfile: string }>('bundle', { dir: '', outfile: '' });

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-bundle-'));
  ctx.outfile = join(ctx.dir, 'server.mjs');
  await bundle({ outfile: ctx.outfile, quiet: true });
});
s.after(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

/** Starts the bundle and resolves with its URL from the first line it prints. */
function startBundle(outfile: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [outfile, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const match = out.match(/listening on (http:\/\/\S+)/);
      if (match) resolve({ child, url: match[1] });
    });
    child.stderr!.on('data', (c) => (err += c));
    child.on('exit', (code) => reject(new Error(`bundle exited ${code}: ${err}${out}`)));
  });
}

const exited = (child: ChildProcess) => new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));

s('the built file starts in production, answers /api/health, and exits 0 on SIGTERM', ({ dir, outfile }) =>
  withTimeout('bundle run', 15_000, async () => {
    const configFile = join(dir, 'prod.json');
    await writeFile(configFile, JSON.stringify({
      ip: '203.0.113.10', domain: null, email: null, dataDir: join(dir, 'prod-data'),
      onboarding: { status: 'FRESH' }, listen: { host: '127.0.0.1', port: 0 },
    }));
    const { child, url } = await startBundle(outfile, ['--config', configFile], { NODE_ENV: 'production' }, dir);
    const done = exited(child);
    try {
      const health = await fetch(`${url}/api/health`);
      assert.is(health.status, 200);
      assert.equal(await health.json(), { status: 'ok' });
      assert.is((await fetch(`${url}/api/tunnels`)).status, 403);
    } finally {
      child.kill('SIGTERM');
    }
    assert.is(await done, 0);
  }),
);

s('with no configuration it creates the sandbox, serves health and the built client, and gates management routes (FRESH)', ({ dir, outfile }) =>
  withTimeout('sandbox run', 15_000, async () => {
    const cwd = join(dir, 'fresh-clone');
    await mkdir(join(cwd, 'dist', 'panel'), { recursive: true });
    await writeFile(join(cwd, 'dist', 'panel', 'index.html'), '<html>the built panel client</html>');
    const { child, url } = await startBundle(outfile, [], { NODE_ENV: '', PORT: '0' }, cwd);
    const done = exited(child);
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
    assert.is(await done, 0);
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

s.run();
