// The start from a V8 startup snapshot (build/snapshot.mjs, lib/snapshot-entry.ts): server-start
// uses the blob only when its record names this node, this blob and these flags, and every start from
// one blob reads its own environment and randomness; anything else falls back to the code cache.
import { spawn } from 'node:child_process';
import { appendFile, copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { installAndGreet, packFixtures } from '../../helpers/plugins.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { writeFreshConfig, writeOnboardedConfig } from '../../helpers/onboarded-config.ts';
import { startListening, stopServer, type ListeningServer } from '../../helpers/listening-server.ts';
// @ts-expect-error plain JS build script
import { bundle, bundleFileOf } from '../../../build/build.mjs';
// @ts-expect-error plain JS build script
import { blobOf, makeSnapshot, SNAPSHOT_NODE_FLAGS, startScriptOf } from '../../../build/snapshot.mjs';

const s = suite<{ dir: string; outfile: string }>('startup snapshot', { dir: '', outfile: '' });

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-snapshot-'));
  ctx.outfile = join(ctx.dir, 'dist', 'server.mjs');
  await bundle({ outfile: ctx.outfile, quiet: true });
  await makeSnapshot({ outfile: ctx.outfile });
});
s.after(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

interface Started extends ListeningServer {
  /** node's own command line: whether the start was given the blob */
  fromBlob: boolean;
}

/** Runs `server-start` beside `outfile` and resolves once it says it listens. */
async function start(outfile: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Started> {
  const server = await startListening(startScriptOf(outfile), args, { env: { RELAY_PANEL_NODE: process.execPath, ...env }, cwd });
  const cmdline = await readFile(`/proc/${server.child.pid}/cmdline`, 'utf8');
  return { ...server, fromBlob: cmdline.split('\0').includes('--snapshot-blob') };
}

async function stop(started: Started) {
  assert.is(await stopServer(started), 0, started.output());
}

const freshConfig = (dir: string, name: string) => writeFreshConfig(dir, { file: `${name}.json`, dataDir: join(dir, `${name}-data`) });

/** A copy of the built server in its own directory, snapshot included. */
async function copyServer(outfile: string, to: string) {
  await mkdir(to, { recursive: true });
  const copy = join(to, 'server.mjs');
  for (const [from, into] of [[outfile, copy], [bundleFileOf(outfile), bundleFileOf(copy)], [startScriptOf(outfile), startScriptOf(copy)], [join(outfile, '..', 'server.snapshot.cjs'), join(to, 'server.snapshot.cjs')]]) await copyFile(from!, into!);
  return copy;
}

s('server-start starts from the blob: it answers, hashes a password on the worker thread and exits 0; its vhost stamps keep the templates\' fingerprint under its bundle\'s SHA-256', ({ dir, outfile }) =>
  withTimeout('snapshot start', 120_000, async () => {
    const dataDir = join(dir, 'users-data');
    const configFile = await writeOnboardedConfig(dir, { file: 'users.json', dataDir });
    const started = await start(outfile, ['--config', configFile], { NODE_ENV: 'production' }, dir);
    try {
      assert.ok(started.fromBlob, 'started without the blob');
      assert.equal(await (await fetch(`${started.url}/api/health`)).json(), { status: 'ok' });
      const admin = { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-dn': 'CN=admin', 'x-ssl-client-serial': '1000', 'content-type': 'application/json' };
      const body = JSON.stringify({ username: 'alice', displayname: 'Alice', email: 'alice@example.test', password: 'alice-password' });
      const created = await fetch(`${started.url}/api/users`, { method: 'POST', headers: admin, body });
      assert.is(created.status, 201, await created.clone().text());
      const tunnel = await fetch(`${started.url}/api/tunnels`, { method: 'POST', headers: admin, body: JSON.stringify({ subdomain: 'app', port: 8080 }) });
      assert.is(tunnel.status, 201, await tunnel.clone().text());
    } finally {
      await stop(started);
    }
    const stamps = JSON.parse(await readFile(join(dataDir, 'vhost-stamps.json'), 'utf8'));
    assert.is(stamps.templates.code, createHash('sha256').update(await readFile(bundleFileOf(outfile))).digest('hex'));
  }),
);

s('two starts from one blob read their own environment and make their own secrets', ({ dir, outfile }) =>
  withTimeout('snapshot environment', 120_000, async () => {
    const first = await freshConfig(dir, 'first');
    const second = await freshConfig(dir, 'second');
    const a = await start(outfile, ['--config', first], { NODE_ENV: 'production' }, dir);
    const b = await start(outfile, ['--config', second], { NODE_ENV: 'development' }, dir);
    try {
      assert.ok(a.fromBlob && b.fromBlob, 'a start without the blob');
      assert.match(a.output(), '(production mode');
      assert.match(b.output(), '(development mode');
      assert.is.not(a.url, b.url);
    } finally {
      await stop(a);
      await stop(b);
    }
    const secretOf = async (file: string) => JSON.parse(await readFile(file, 'utf8')).sessionSecret as string;
    const [one, two] = [await secretOf(first), await secretOf(second)];
    assert.match(one, /^[0-9a-f]{64}$/);
    assert.is.not(one, two, 'the session secret came from the snapshot');
  }),
);

s('a blob its record does not describe (another node binary, other flags, a rewritten blob) is not used', ({ dir, outfile }) =>
  withTimeout('snapshot fallback', 120_000, async () => {
    const other = await copyServer(outfile, join(dir, 'other-node'));
    await makeSnapshot({ outfile: other });
    const record = `${blobOf(other)}.made`;
    const lines = (await readFile(record, 'utf8')).split('\n');
    const configFile = await freshConfig(dir, 'fallback');
    // another node binary: the record names other than this one
    await writeFile(record, [lines[0]!.replace(/^\d+:\d+/, '1:1'), ...lines.slice(1)].join('\n'));
    let started = await start(other, ['--config', configFile], { NODE_ENV: 'production' }, dir);
    assert.not.ok(started.fromBlob, 'started from a blob of another node');
    assert.is((await fetch(`${started.url}/api/health`)).status, 200);
    await stop(started);
    // other V8 flags: node would refuse the blob before a line of JavaScript runs
    await writeFile(record, [...lines.slice(0, 2), '--max-semi-space-size=8', ''].join('\n'));
    started = await start(other, ['--config', configFile], { NODE_ENV: 'production' }, dir);
    assert.not.ok(started.fromBlob, 'started from a blob made with other flags');
    await stop(started);
    // a blob damaged after its record was written: node would abort on it
    await writeFile(record, lines.join('\n'));
    await appendFile(blobOf(other), 'damaged');
    started = await start(other, ['--config', configFile], { NODE_ENV: 'production' }, dir);
    assert.not.ok(started.fromBlob, 'started from a damaged blob');
    assert.is((await fetch(`${started.url}/api/health`)).status, 200);
    await stop(started);
  }),
);

s('a blob made for another bundle starts the launcher beside it, through the code cache', ({ dir, outfile }) =>
  withTimeout('snapshot of another bundle', 120_000, async () => {
    const launcher = await copyServer(outfile, join(dir, 'replaced'));
    await makeSnapshot({ outfile: launcher });
    // a new release in place: another bundle, and its hash in the launcher; the blob and its record stay
    const sha256 = async (file: string) => createHash('sha256').update(await readFile(file)).digest('hex');
    const before = await sha256(bundleFileOf(launcher));
    await appendFile(bundleFileOf(launcher), '// another release\n');
    await writeFile(launcher, (await readFile(launcher, 'latin1')).replaceAll(before, await sha256(bundleFileOf(launcher))), 'latin1');
    const cacheFile = join(dir, 'replaced.code-cache');
    const started = await start(launcher, ['--config', await freshConfig(dir, 'replaced')], { NODE_ENV: 'production', RELAY_PANEL_CODE_CACHE: cacheFile }, dir);
    try {
      assert.ok(started.fromBlob, 'the record should still name the blob');
      assert.is((await fetch(`${started.url}/api/health`)).status, 200);
      // only the launcher writes a code cache, after its first answer
      for (let waited = 0; !(await stat(cacheFile).catch(() => undefined)); waited += 20) {
        if (waited > 30_000) assert.unreachable('no code cache: the snapshot ran its own bundle');
        await new Promise((ok) => setTimeout(ok, 20));
      }
    } finally {
      await stop(started);
    }
  }),
);

s('a start from the blob installs a plugin (npm through child_process), imports its ES module and mounts it again after a restart', ({ dir, outfile }) =>
  withTimeout('snapshot plugin', 120_000, async () => {
    const packed = await packFixtures('hello');
    const configFile = await writeOnboardedConfig(dir, { file: 'plugins.json', dataDir: join(dir, 'plugins-data'), ip: '127.0.0.1', system: { driver: 'sandbox' } });
    // development mode: every caller is admin, and any file: tarball may be installed
    const first = await start(outfile, ['--config', configFile], { NODE_ENV: 'development' }, dir);
    try {
      assert.ok(first.fromBlob, 'started without the blob');
      const hello = await installAndGreet(first.url, packed.specs.hello!);
      assert.is(hello.installed, 201, hello.installText);
      assert.is(hello.enabled, 200);
      assert.equal(hello.greeting, { hello: 'world', role: 'admin', calls: 1 });
    } finally {
      await stop(first);
    }
    const second = await start(outfile, ['--config', configFile], { NODE_ENV: 'development' }, dir);
    try {
      assert.equal(await (await fetch(`${second.url}/api/hello/greet`)).json(), { hello: 'world', role: 'admin', calls: 1 });
    } finally {
      await stop(second);
    }
  }),
);

s('a bundle that reads the environment, clock, randomness or a builtin it cannot keep as it evaluates is refused by the builder', ({ dir, outfile }) =>
  withTimeout('snapshot refusals', 120_000, async () => {
    const fake = join(dir, 'fake');
    await mkdir(fake);
    const launcher = join(fake, 'server.mjs');
    await writeFile(launcher, '');
    await copyFile(join(outfile, '..', 'server.snapshot.cjs'), join(fake, 'server.snapshot.cjs'));
    const refused = async (evaluation: string) => {
      await writeFile(bundleFileOf(launcher), `exports.main = async () => {};\n${evaluation}\n`);
      return makeSnapshot({ outfile: launcher }).then(() => '', (error: Error) => error.message);
    };
    assert.is(await refused('const later = () => process.env.HOME;'), '', 'a bundle that reads nothing at evaluation');
    assert.match(await refused('const home = process.env.HOME;'), 'process.env.HOME is read while the startup snapshot is built');
    assert.match(await refused('const args = process.argv.slice(2);'), 'process.argv.slice is read');
    assert.match(await refused('const started = Date.now();'), 'Date.now() is read');
    assert.match(await refused('const seed = Math.random();'), 'Math.random() is read');
    assert.match(await refused('const secret = require("node:crypto").randomBytes(32);'), 'crypto.randomBytes() is read');
    assert.match(await refused('const { createServer } = require("node:http");'), 'node:http is read while the startup snapshot is built');
  }),
);

s('a reference the bundle kept to the clock, randomness or environment answers with the start\'s own after the start', ({ dir, outfile }) =>
  withTimeout('snapshot kept references', 120_000, async () => {
    const kept = join(dir, 'kept');
    await mkdir(kept);
    const launcher = join(kept, 'server.mjs');
    await copyFile(join(outfile, '..', 'server.snapshot.cjs'), join(kept, 'server.snapshot.cjs'));
    const source = [
      'const now = Date.now; const random = Math.random; const env = process.env; const cwd = process.cwd;',
      'exports.main = async () => console.log(JSON.stringify({ now: now() > 0, random: typeof random(), env: env.RELAY_KEPT, cwd: cwd() }));',
    ].join('\n');
    await writeFile(bundleFileOf(launcher), source);
    // the launcher names its bundle's SHA-256, so a start from the blob runs this bundle's main()
    await writeFile(launcher, `// "${createHash('sha256').update(source).digest('hex')}"\n`);
    const { blob } = await makeSnapshot({ outfile: launcher });
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [...SNAPSHOT_NODE_FLAGS, '--snapshot-blob', blob, launcher], { cwd: kept, env: { ...process.env, RELAY_KEPT: 'the start' }, stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}: ${text}`))));
    });
    assert.equal(JSON.parse(output), { now: true, random: 'number', env: 'the start', cwd: kept });
  }),
);

s.run();
