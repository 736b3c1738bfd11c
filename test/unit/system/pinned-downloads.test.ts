// Pinned downloads a real box can trust: the pin (its source cited in docs/decisions.md), and where the
// release publishes one the .sha256 file beside the asset; a failure names both values and the
// --no-downloads way out. The assets come from a server on 127.0.0.1.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checksumSources, installPinned, publishedSha256, type PinnedRelease } from '../../../lib/system/pinned/install.ts';
import { systemConfig } from '../../../lib/system/config.ts';

const s = suite('pinned downloads: the pin and the release\'s published checksum');
const program = Buffer.from('#!/bin/sh\necho chisel 1.9.0\n');
const asset = gzipSync(program);
const hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const files = new Map<string, Buffer>();
let server: Server;
let base = '';
let dir = '';

s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-pins-'));
  server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    res.statusCode = body ? 200 : 404;
    res.end(body ?? 'not found');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  files.set('/chisel_1.9.0_linux_amd64.gz', asset);
});
s.after(async () => {
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

const release = (over: Partial<PinnedRelease> = {}): PinnedRelease => ({
  name: 'chisel', version: '1.9.0', url: `${base}/chisel_1.9.0_linux_amd64.gz`, sha256: hex(asset), checksumFile: 'none', ...over,
});
async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the install should have failed');
}

s('the defaults: chisel is checked against its cited pin, Authelia also against the .sha256 beside its asset', () => {
  const config = systemConfig({ driver: 'host' });
  assert.is(config.chisel.release.checksumFile, 'none');
  assert.is(config.authelia.release.checksumFile, 'beside');
  assert.is(checksumSources({ name: 'authelia', ...config.authelia.release }), `its pinned SHA-256 and ${config.authelia.release.url}.sha256`);
});

s('a .sha256 beside the asset: one line counts whatever name it gives; a list counts only by the asset\'s line', () => {
  const h = hex(asset);
  const digest = (text: string, name: string) => publishedSha256(text, name)?.sha256 ?? null;
  assert.equal(publishedSha256(`${h}  chisel_1.9.0_linux_amd64.gz\n`, 'chisel_1.9.0_linux_amd64.gz'), { sha256: h, name: 'chisel_1.9.0_linux_amd64.gz' });
  // Authelia 4.38: the line names the asset as built, without the version the release gave it
  assert.equal(publishedSha256(`${h}  authelia-linux-amd64.tar.gz\n`, 'authelia-v4.38.4-linux-amd64.tar.gz'), { sha256: h, name: 'authelia-linux-amd64.tar.gz' });
  assert.is(digest(`${'a'.repeat(64)}  other.gz\n${h} *dist/chisel_1.9.0_linux_amd64.gz\n`, 'chisel_1.9.0_linux_amd64.gz'), h);
  assert.equal(publishedSha256(`${h.toUpperCase()}\n`, 'x.gz'), { sha256: h, name: null });
  assert.is(digest(`${'a'.repeat(64)}  other.gz\n${h}  more.gz\n`, 'x.gz'), null);
  assert.is(digest(`${h}  x.gz\n<html>\n`, 'x.gz'), null, 'a line that is no sha256sum line: no checksum file');
  assert.is(digest('<html>not found</html>', 'x.gz'), null);
  assert.is(digest(`${h.slice(1)}  x.gz\n`, 'x.gz'), null);
  assert.is(digest('', 'x.gz'), null);
});

s('a download that matches the pin and the published file is installed', async () => {
  files.set('/chisel_1.9.0_linux_amd64.gz.sha256', Buffer.from(`${hex(asset)}  chisel_1.9.0_linux_amd64.gz\n`));
  const target = join(dir, 'ok', 'chisel');
  assert.ok(await installPinned(release({ checksumFile: 'beside' }), target, { timeoutMs: 5000 }));
  assert.equal(await readFile(target), program);
  assert.is((await stat(target)).mode & 0o777, 0o755);
});

s('a wrong pin: both values named, the way out given, nothing installed', async () => {
  const target = join(dir, 'pin', 'chisel');
  const message = await failure(installPinned(release({ sha256: '0'.repeat(64) }), target, { timeoutMs: 5000 }));
  assert.match(message, `expected ${'0'.repeat(64)}, the pinned chisel.release.sha256 of the system configuration; got ${hex(asset)}, the SHA-256 of what ${base}/chisel_1.9.0_linux_amd64.gz served`);
  assert.match(message, `relay-panel install --no-downloads, then put chisel 1.9.0 at ${target}`);
  await stat(target).then(() => assert.unreachable('installed'), () => undefined);
});

s('a published checksum that differs from the download fails with both values, though the pin matched', async () => {
  files.set('/chisel_1.9.0_linux_amd64.gz.sha256', Buffer.from(`${'b'.repeat(64)}  chisel_1.9.0_linux_amd64.gz\n`));
  const target = join(dir, 'published', 'chisel');
  const message = await failure(installPinned(release({ checksumFile: 'beside' }), target, { timeoutMs: 5000 }));
  assert.match(message, `the release publishes ${'b'.repeat(64)} for chisel_1.9.0_linux_amd64.gz in ${base}/chisel_1.9.0_linux_amd64.gz.sha256; got ${hex(asset)}`);
  assert.match(message, '--no-downloads');
  files.delete('/chisel_1.9.0_linux_amd64.gz.sha256');
  assert.match(await failure(installPinned(release({ checksumFile: 'beside' }), target, { timeoutMs: 5000 })), 'HTTP 404');
});

s('an unreachable host names the URL and the way out', async () => {
  const target = join(dir, 'gone', 'chisel');
  const message = await failure(installPinned(release({ url: 'http://127.0.0.1:9/chisel.gz' }), target, { timeoutMs: 2000 }));
  assert.match(message, 'download of http://127.0.0.1:9/chisel.gz failed');
  assert.match(message, 'relay-panel install --no-downloads');
});

s.run();
