// A managed site's name in the sandbox: its files, as nginx serves them on a real host
// (lib/system/proxy/templates.ts renderSite): `try_files $uri $uri/ =404` (index.html for a
// folder; the SPA's index.html instead of 404), hidden files refused. A path that leaves the site's
// folder (`..`, an encoded slash) is refused before any file is looked at.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TYPES } from '../node/client-files.ts';

/** The path's segments, each decoded; null when one would leave the folder or cannot be a file name. */
export function siteSegments(target: string | undefined): string[] | null {
  const path = (target ?? '/').split(/[?#]/, 1)[0]!;
  if (!path.startsWith('/')) return null;
  const segments: string[] = [];
  for (const raw of path.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '' || segment === '.') continue;
    if (segment === '..' || /[/\\\0]/.test(segment)) return null;
    segments.push(segment);
  }
  return segments;
}

async function fileAt(path: string): Promise<{ path: string; size: number } | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (info?.isFile()) return { path, size: info.size };
  if (!info?.isDirectory()) return undefined;
  const index = join(path, 'index.html');
  const inner = await stat(index).catch(() => undefined);
  return inner?.isFile() ? { path: index, size: inner.size } : undefined;
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function serveSiteFile(req: IncomingMessage, res: ServerResponse, root: string, spaMode: boolean): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'Method not allowed\n');
  const segments = siteSegments(req.url);
  if (!segments) return plain(res, 400, 'Bad request\n');
  if (segments.some((s) => s.startsWith('.'))) return plain(res, 403, 'Forbidden\n');
  const path = join(root, ...segments);
  // the segments cannot leave the root; the check says so where a change would break it
  if (path !== root && !path.startsWith(root + sep)) return plain(res, 400, 'Bad request\n');
  const found = (await fileAt(path)) ?? (spaMode ? await fileAt(join(root, 'index.html')) : undefined);
  if (!found) return plain(res, 404, 'Not found\n');
  res.writeHead(200, { 'content-type': TYPES[extname(found.path)] ?? 'application/octet-stream', 'content-length': found.size });
  if (req.method === 'HEAD') return void res.end();
  const file = createReadStream(found.path);
  file.on('error', () => res.destroy());
  file.pipe(res);
}
