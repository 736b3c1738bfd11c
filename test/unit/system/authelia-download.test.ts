// Authelia's download checked the way its 4.38 releases publish it: a tar.gz made by `tar -czf` of
// the executable, its unit and its configuration template, and beside it `<asset>.sha256`, one
// sha256sum line that names the asset as it was built (`authelia-linux-amd64.tar.gz`, before the
// release step put the version in the asset's name). No signature: 4.38 releases sign nothing.
// The release is served from 127.0.0.1; every refusal names the expected and the actual SHA-256,
// where each came from, and the --no-downloads way out, and leaves the target as it was.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { installPinned, type PinnedRelease } from '../../../lib/system/pinned/install.ts';
import { systemConfig } from '../../../lib/system/config.ts';

const s = suite('Authelia download: the cited pin and the .sha256 its release publishes');
const ASSET = 'authelia-v4.38.4-linux-amd64.tar.gz';
const BUILT_AS = 'authelia-linux-amd64.tar.gz';
const MEMBER = 'authelia-linux-amd64';
const program = Buffer.from('#!/bin/sh\necho authelia 4.38.4\n');
const files = new Map<string, Buffer>();
const requested: string[] = [];
const hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let server: Server;
let base = '';
let dir = '';
let asset = Buffer.alloc(0);

s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-authelia-dl-'));
  // the release's tarball, made as Authelia's build makes it
  const build = join(dir, 'build');
  await mkdir(build);
  await writeFile(join(build, MEMBER), program, { mode: 0o755 });
  await writeFile(join(build, 'authelia.service'), '[Unit]\nDescription=Authelia\n');
  await writeFile(join(build, 'config.template.yml'), '---\ntheme: light\n');
  execFileSync('tar', ['-czf', join(dir, BUILT_AS), '-C', build, MEMBER, 'authelia.service', 'config.template.yml']);
  asset = await readFile(join(dir, BUILT_AS));
  server = createServer((req, res) => {
    requested.push(req.url ?? '');
    const body = files.get(req.url ?? '');
    res.statusCode = body ? 200 : 404;
    res.end(body ?? 'Not Found');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v4.38.4`;
});
s.after(async () => {
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

/** The release as it is published: the asset and, beside it, the given checksum file (null: none). */
function publish(sidecar: string | null): void {
  files.clear();
  requested.length = 0;
  files.set(`/v4.38.4/${ASSET}`, asset);
  if (sidecar !== null) files.set(`/v4.38.4/${ASSET}.sha256`, Buffer.from(sidecar));
}
const release = (over: Partial<PinnedRelease> = {}): PinnedRelease => ({
  name: 'authelia', version: '4.38.4', url: `${base}/${ASSET}`, sha256: hex(asset), checksumFile: 'beside', ...over,
});
const install = (target: string, over: Partial<PinnedRelease> = {}) => installPinned(release(over), target, { timeoutMs: 5000, archiveMember: MEMBER });
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the install should have been refused');
}
/** A box that has an earlier Authelia: a refusal must leave it and its marker as they were. */
async function earlierInstall(name: string): Promise<string> {
  const target = join(dir, name, 'authelia');
  await mkdir(join(dir, name));
  await writeFile(target, 'earlier authelia', { mode: 0o755 });
  await writeFile(`${target}.release`, '4.38.3 earlier\n');
  return target;
}
async function unchanged(target: string): Promise<void> {
  assert.is(await readFile(target, 'utf8'), 'earlier authelia');
  assert.is(await readFile(`${target}.release`, 'utf8'), '4.38.3 earlier\n');
}
function namesWayOut(message: string, target: string): void {
  assert.match(message, `relay-panel install --no-downloads, then put authelia 4.38.4 at ${target}`);
}

s('the default pin is the one Authelia\'s AUR package authelia-bin 4.38.4 records, with the release\'s .sha256 beside it', () => {
  const { release: r, archiveMember } = systemConfig({ driver: 'host' }).authelia;
  assert.is(r.version, '4.38.4');
  assert.is(r.url, `https://github.com/authelia/authelia/releases/download/v4.38.4/${ASSET}`);
  assert.is(r.sha256, '3ce24ebd83e947891c2ac01583886eb5fec65725f3433eba524f0dd45f50e243');
  assert.is(r.checksumFile, 'beside');
  assert.is(archiveMember, MEMBER);
});

s('the release as Authelia publishes it (the .sha256 names the asset as built) installs the executable', async () => {
  publish(`${hex(asset)}  ${BUILT_AS}\n`);
  const target = join(dir, 'ok', 'authelia');
  assert.ok(await install(target));
  assert.equal(await readFile(target), program);
  assert.is((await stat(target)).mode & 0o777, 0o755);
  assert.is(await readFile(`${target}.release`, 'utf8'), `4.38.4 ${hex(asset)}\n`);
  assert.not.ok(await install(target), 'the same release again writes nothing');
});

s('a .sha256 that gives another SHA-256 refuses: both values and where each came from, the way out', async () => {
  const other = 'b'.repeat(64);
  publish(`${other}  ${BUILT_AS}\n`);
  const target = await earlierInstall('published');
  const message = await refusal(install(target));
  assert.match(message, `the release publishes ${other} for ${BUILT_AS} in ${base}/${ASSET}.sha256`);
  assert.match(message, `got ${hex(asset)}, the SHA-256 of what ${base}/${ASSET} served`);
  namesWayOut(message, target);
  await unchanged(target);
});

s('a missing .sha256 refuses with the pin and the download\'s SHA-256 named', async () => {
  publish(null);
  const target = await earlierInstall('missing');
  const message = await refusal(install(target));
  assert.match(message, `cannot check it against what its release publishes: download of ${base}/${ASSET}.sha256 failed: HTTP 404`);
  assert.match(message, `pinned ${hex(asset)}`);
  assert.match(message, `got ${hex(asset)}, the SHA-256 of what ${base}/${ASSET} served`);
  namesWayOut(message, target);
  await unchanged(target);
});

s('a .sha256 that is no checksum file (an error page served as 200) or lists only other assets refuses', async () => {
  for (const sidecar of ['<html><body>Rate limited</body></html>\n', `${'c'.repeat(64)}  authelia-linux-arm64.tar.gz\n${'d'.repeat(64)}  authelia-linux-arm.tar.gz\n`, '']) {
    publish(sidecar);
    const target = join(dir, 'garbled', 'authelia');
    const message = await refusal(install(target));
    assert.match(message, `${base}/${ASSET}.sha256 gives no SHA-256 for ${ASSET}`);
    assert.match(message, `got ${hex(asset)}`);
    namesWayOut(message, target);
    await stat(join(dir, 'garbled')).then(() => assert.unreachable('the target\'s directory was made'), () => undefined);
  }
});

s('a download that is not the pinned release refuses before the .sha256 is read, even when the .sha256 agrees with it', async () => {
  const pin = 'e'.repeat(64);
  publish(`${hex(asset)}  ${BUILT_AS}\n`);
  const target = await earlierInstall('pin');
  const message = await refusal(install(target, { sha256: pin }));
  assert.match(message, `expected ${pin}, the pinned authelia.release.sha256 of the system configuration`);
  assert.equal(requested, [`/v4.38.4/${ASSET}`]);
  assert.match(message, `got ${hex(asset)}, the SHA-256 of what ${base}/${ASSET} served`);
  namesWayOut(message, target);
  await unchanged(target);
});

s('an archive without the executable refuses and installs nothing', async () => {
  publish(`${hex(asset)}  ${BUILT_AS}\n`);
  const target = join(dir, 'member', 'authelia');
  const message = await refusal(installPinned(release(), target, { timeoutMs: 5000, archiveMember: 'authelia-linux-arm64' }));
  assert.match(message, 'authelia-linux-arm64 is not in the archive');
  await stat(target).then(() => assert.unreachable('installed'), () => undefined);
});

s.run();
