import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { Response } from './responses.ts';

const BUILT_IN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>relay-panel</title></head>
<body><h1>relay-panel</h1><p>The API is running. The panel client is not installed here
(set <code>staticDir</code> in the configuration). Health: <a href="/api/health">/api/health</a>.</p></body></html>
`;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8', '.map': 'application/json',
};

/**
 * Non-API paths: an existing file of the client bundle, else the entry document (the client routes).
 * The entry document is cached and re-read only when its modification time changes.
 */
export function createSpaHandler(staticDir: () => string | undefined) {
  let cache: { dir: string; mtimeMs: number; body: string } | undefined;

  async function entryDocument(dir: string | undefined): Promise<string> {
    if (!dir) return BUILT_IN_PAGE;
    const file = join(dir, 'index.html');
    const info = await stat(file).catch(() => undefined);
    if (!info) return BUILT_IN_PAGE;
    if (cache?.dir !== dir || cache.mtimeMs !== info.mtimeMs) cache = { dir, mtimeMs: info.mtimeMs, body: await readFile(file, 'utf8') };
    return cache.body;
  }

  async function asset(dir: string, pathname: string): Promise<Response | undefined> {
    let relative: string;
    try {
      relative = decodeURIComponent(pathname);
    } catch {
      return undefined;
    }
    if (relative.includes('\0') || relative.split('/').some((part) => part.startsWith('.'))) return undefined;
    const root = normalize(dir + sep);
    const file = normalize(join(root, relative));
    if (!file.startsWith(root) || file === root) return undefined;
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    return new Response(await readFile(file), { headers: { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' } });
  }

  return async (request: Request): Promise<Response> => {
    const dir = staticDir();
    const pathname = new URL(request.url).pathname;
    const found = dir && pathname !== '/' ? await asset(dir, pathname) : undefined;
    return found ?? new Response(await entryDocument(dir), { headers: { 'content-type': 'text/html; charset=utf-8' } });
  };
}
