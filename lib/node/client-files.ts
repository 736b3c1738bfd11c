import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { builtInEntryDocument } from '../http/entry-document.ts';
import { Response } from '../http/responses.ts';
import type { ClientFiles } from '../http/router.ts';

export const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.map': 'application/json', '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp',
  '.avif': 'image/avif', '.ico': 'image/x-icon', '.woff': 'font/woff', '.woff2': 'font/woff2', '.ttf': 'font/ttf',
  '.wasm': 'application/wasm', '.txt': 'text/plain; charset=utf-8', '.xml': 'application/xml',
};

/** esbuild's `[name]-[hash]`: the hash is 8 (or more) upper-case letters and digits before the extension. */
const HASHED_NAME = /-[A-Z0-9]{8,}\.[a-z0-9]+$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Files whose name does not change with their content: the browser asks again every time. */
const REVALIDATE = 'no-cache';

/** Precompressed siblings, best first; served when the client accepts the encoding. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

interface Found {
  file: string;
  bytes: Buffer;
  encoding?: string;
}

/**
 * Non-API reads: a file of the client bundle under `staticDir`, else its `index.html` (the client's
 * routes), else the built-in page. Bytes are kept in memory and re-read only when the file's
 * modification time changes.
 */
export function createClientFiles(staticDir: () => string | undefined): ClientFiles {
  const cache = new Map<string, { mtimeMs: number; bytes: Buffer }>();

  async function load(file: string): Promise<Buffer | undefined> {
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const kept = cache.get(file);
    if (kept?.mtimeMs === info.mtimeMs && kept.bytes.length === info.size) return kept.bytes;
    const bytes = await readFile(file);
    cache.set(file, { mtimeMs: info.mtimeMs, bytes });
    return bytes;
  }

  /** The file itself or its best precompressed sibling the client accepts. */
  async function withEncoding(file: string, accepted: string): Promise<Found | undefined> {
    for (const { name, suffix } of ENCODINGS) {
      if (!acceptsEncoding(accepted, name)) continue;
      const bytes = await load(file + suffix);
      if (bytes) return { file, bytes, encoding: name };
    }
    const bytes = await load(file);
    return bytes && { file, bytes };
  }

  function answer(found: Found, cacheControl: string): Response {
    const headers: Record<string, string> = {
      'content-type': TYPES[extname(found.file)] ?? 'application/octet-stream',
      'cache-control': cacheControl,
      vary: 'accept-encoding',
    };
    if (found.encoding) headers['content-encoding'] = found.encoding;
    // node's Buffer is a Uint8Array over an ArrayBuffer; its typing leaves SharedArrayBuffer open.
    return new Response(found.bytes as Uint8Array<ArrayBuffer>, { headers });
  }

  return async (request) => {
    const dir = staticDir();
    if (!dir) return builtInEntryDocument();
    const accepted = request.headers.get('accept-encoding') ?? '';
    const file = bundleFile(dir, new URL(request.url).pathname);
    const asset = file ? await withEncoding(file, accepted) : undefined;
    if (asset) return answer(asset, HASHED_NAME.test(asset.file) ? IMMUTABLE : REVALIDATE);
    const entry = await withEncoding(join(dir, 'index.html'), accepted);
    return entry ? answer(entry, REVALIDATE) : builtInEntryDocument();
  };
}

/** The file a path names inside the bundle, or undefined for `/`, dot files and anything outside it. */
function bundleFile(dir: string, pathname: string): string | undefined {
  let relative: string;
  try {
    relative = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (relative.includes('\0') || relative.split('/').some((part) => part.startsWith('.'))) return undefined;
  const root = normalize(dir + sep);
  const file = normalize(join(root, relative));
  return file.startsWith(root) && file !== root ? file : undefined;
}

/** `br` in `gzip, deflate, br;q=1`, unless its q is 0. */
function acceptsEncoding(header: string, encoding: string): boolean {
  for (const item of header.split(',')) {
    const [name, ...params] = item.trim().toLowerCase().split(';');
    if (name !== encoding && name !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  }
  return false;
}
