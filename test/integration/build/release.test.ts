import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error plain JS build script
import { release } from '../../../build/release.mjs';

const s = suite<{ dir: string; server: string }>('release', { dir: '', server: '' });

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-release-'));
  ctx.server = join(ctx.dir, 'server.mjs');
  // a stand-in launcher that shows how the shell launcher called it, and a stand-in bundle beside it
  await writeFile(ctx.server, 'console.log(JSON.stringify(process.argv.slice(2)));\n');
  await writeFile(join(ctx.dir, 'server.bundle.cjs'), 'the bundle\n');
  // the startup snapshot's builder entry and start script (build/snapshot.mjs), which the unit runs
  await writeFile(join(ctx.dir, 'server.snapshot.cjs'), 'the snapshot entry\n');
  await writeFile(join(ctx.dir, 'server-start'), '#!/bin/sh\n', { mode: 0o755 });
});
s.after(async (ctx) => rm(ctx.dir, { recursive: true, force: true }));

s('the folder holds the bundle, VERSION and a launcher that runs the bundle with its arguments', async ({ dir, server }) => {
  const out = join(dir, 'a', 'release');
  const { version, tarball } = await release({ serverFile: server, outDir: out, clientDirs: [join(dir, 'no-client')], quiet: true });
  assert.match(version, /^\d+\.\d+\.\d+-[0-9a-f]{12}$/);
  assert.is((await readFile(join(out, 'VERSION'), 'utf8')).trim(), version);
  assert.is(await readFile(join(out, 'server.mjs'), 'utf8'), await readFile(server, 'utf8'));
  assert.is(await readFile(join(out, 'server.bundle.cjs'), 'utf8'), 'the bundle\n');
  assert.is((await stat(join(out, 'relay-panel'))).mode & 0o111, 0o111);
  assert.is(await stat(join(out, 'panel')).catch(() => null), null);
  const said = execFileSync(join(out, 'relay-panel'), ['install', '--ip', '203.0.113.9'], { encoding: 'utf8', env: { ...process.env, RELAY_PANEL_NODE: process.execPath } });
  assert.equal(JSON.parse(said), ['install', '--ip', '203.0.113.9']);
  const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
  assert.equal(listing, [`relay-panel-${version}/`, `relay-panel-${version}/VERSION`, `relay-panel-${version}/relay-panel`, `relay-panel-${version}/server-start`, `relay-panel-${version}/server.bundle.cjs`, `relay-panel-${version}/server.mjs`, `relay-panel-${version}/server.snapshot.cjs`]);
  assert.is((await stat(join(out, 'server-start'))).mode & 0o111, 0o111);
});

s('a built panel client is copied in as panel/; the version follows the bundle content (the file beside the launcher)', async ({ dir, server }) => {
  const client = join(dir, 'client');
  await mkdir(join(client, 'assets'), { recursive: true });
  await writeFile(join(client, 'index.html'), '<!doctype html><title>panel</title>');
  await writeFile(join(client, 'assets', 'app.js'), 'x');
  const first = await release({ serverFile: server, outDir: join(dir, 'b', 'release'), clientDirs: [join(dir, 'missing'), client], quiet: true });
  assert.is(await readFile(join(dir, 'b', 'release', 'panel', 'assets', 'app.js'), 'utf8'), 'x');
  await writeFile(join(dir, 'server.bundle.cjs'), 'another bundle\n');
  const second = await release({ serverFile: server, outDir: join(dir, 'c', 'release'), clientDirs: [], quiet: true });
  assert.is.not(second.version, first.version);
});

s('the launcher refuses a Node older than 20', async ({ dir }) => {
  const fakeNode = join(dir, 'old-node');
  await writeFile(fakeNode, '#!/bin/sh\nif [ "$1" = "-p" ]; then echo 18; else echo v18.19.0; fi\n', { mode: 0o755 });
  const launcher = join(dir, 'a', 'release', 'relay-panel');
  let failed: { status: number; stderr: string } | null = null;
  try {
    execFileSync(launcher, ['doctor'], { encoding: 'utf8', stdio: 'pipe', env: { ...process.env, RELAY_PANEL_NODE: fakeNode } });
  } catch (e) {
    failed = e as { status: number; stderr: string };
  }
  assert.ok(failed);
  assert.is(failed.status, 1);
  assert.match(failed.stderr, 'needs Node.js 20 or later (found v18.19.0)');
});

s.run();
