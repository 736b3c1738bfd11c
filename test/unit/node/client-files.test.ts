// The web client's files, cached by name.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClientFiles } from '../../../lib/node/client-files.ts';

interface Ctx {
  dir: string;
  serve(path: string, headers?: Record<string, string>): Promise<Response>;
}
const s = suite<Ctx>('client files', {} as Ctx);

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-client-'));
  await mkdir(join(ctx.dir, 'assets'));
  await writeFile(join(ctx.dir, 'index.html'), '<html>entry</html>');
  await writeFile(join(ctx.dir, 'assets', 'app-3F9A1B2C.js'), 'console.log("hashed")');
  await writeFile(join(ctx.dir, 'assets', 'app-3F9A1B2C.js.br'), 'BROTLI-BYTES');
  await writeFile(join(ctx.dir, 'assets', 'app-3F9A1B2C.js.gz'), 'GZIP-BYTES');
  await writeFile(join(ctx.dir, 'assets', 'app-settings.css'), 'body{}');
  await writeFile(join(ctx.dir, 'logo.svg'), '<svg/>');
  const files = createClientFiles(() => ctx.dir);
  ctx.serve = (path, headers = {}) => files(new Request(`http://localhost${path}`, { headers }));
});
s.after.each(async ({ dir }) => {
  await rm(dir, { recursive: true, force: true });
});

s('a file named with its content hash is cached for a year, immutable', async ({ serve }) => {
  const response = await serve('/assets/app-3F9A1B2C.js');
  assert.is(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.is(response.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.is(await response.text(), 'console.log("hashed")');
});

s('files without a hash and the entry document are revalidated every time', async ({ serve }) => {
  for (const path of ['/assets/app-settings.css', '/', '/index.html', '/tunnels/42']) {
    const response = await serve(path);
    assert.is(response.headers.get('cache-control'), 'no-cache', path);
  }
  assert.is((await serve('/assets/app-settings.css')).headers.get('content-type'), 'text/css; charset=utf-8');
  assert.is((await serve('/logo.svg')).headers.get('content-type'), 'image/svg+xml');
});

s('client routes fall back to the entry document', async ({ serve }) => {
  const response = await serve('/tunnels/42/edit');
  assert.is(response.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.is(await response.text(), '<html>entry</html>');
});

s('a precompressed sibling is sent when the client accepts its encoding, the best one first', async ({ serve }) => {
  const brotli = await serve('/assets/app-3F9A1B2C.js', { 'accept-encoding': 'gzip, deflate, br' });
  assert.is(brotli.headers.get('content-encoding'), 'br');
  assert.is(brotli.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.is(brotli.headers.get('vary'), 'accept-encoding');
  assert.is(await brotli.text(), 'BROTLI-BYTES');
  const gzip = await serve('/assets/app-3F9A1B2C.js', { 'accept-encoding': 'gzip, br;q=0' });
  assert.is(gzip.headers.get('content-encoding'), 'gzip');
  assert.is(await gzip.text(), 'GZIP-BYTES');
  const plain = await serve('/assets/app-3F9A1B2C.js', { 'accept-encoding': 'identity' });
  assert.is(plain.headers.get('content-encoding'), null);
  assert.is(await plain.text(), 'console.log("hashed")');
  const noSibling = await serve('/assets/app-settings.css', { 'accept-encoding': 'br' });
  assert.is(noSibling.headers.get('content-encoding'), null);
});

s('a changed file is read again; dot files and paths outside the bundle are not served', async ({ dir, serve }) => {
  await serve('/assets/app-settings.css');
  await new Promise((r) => setTimeout(r, 20));
  await writeFile(join(dir, 'assets', 'app-settings.css'), 'body{color:red}');
  assert.is(await (await serve('/assets/app-settings.css')).text(), 'body{color:red}');
  await writeFile(join(dir, '.env'), 'SECRET=1');
  for (const path of ['/.env', '/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2F..%2Fetc%2Fpasswd']) {
    assert.is(await (await serve(path)).text(), '<html>entry</html>', path);
  }
});

s.run();
