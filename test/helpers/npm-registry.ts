import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback npm registry holding packed tarballs: enough of the registry protocol for
 * `npm install <name>` (the packument, then the tarball), so registry installs are tested without
 * anything leaving the machine.
 */
export async function startNpmRegistry(packages: { name: string; version: string; tarball: string }[]): Promise<{ url: string; close(): Promise<void> }> {
  const files = new Map<string, Buffer>();
  const packuments = new Map<string, unknown>();
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://registry').pathname);
    const body = files.get(path) ?? (packuments.has(path) ? Buffer.from(JSON.stringify(packuments.get(path))) : undefined);
    if (!body) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    res.writeHead(200, { 'content-type': path.endsWith('.tgz') ? 'application/octet-stream' : 'application/json' }).end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const { name, version, tarball } of packages) {
    const bytes = await readFile(tarball);
    const file = `/tarballs/${name.replace('/', '-')}-${version}.tgz`;
    files.set(file, bytes);
    const dist = {
      tarball: url + file,
      shasum: createHash('sha1').update(bytes).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    };
    packuments.set(`/${name}`, { name, 'dist-tags': { latest: version }, versions: { [version]: { name, version, dist } } });
  }
  return {
    url,
    close: () => new Promise<void>((ok) => { server.closeAllConnections(); server.close(() => ok()); }),
  };
}
