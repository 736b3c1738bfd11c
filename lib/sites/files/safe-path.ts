import { lstat, realpath } from 'node:fs/promises';
import { mkdirWithMode } from '../../system/common/fs.ts';
import { dirname, join, sep } from 'node:path';

/** A client path the site refuses; callers add their route's prefix (`Upload failed: ...`). */
export class SitePathError extends Error {}

const MAX_DECODES = 3;

/** The spellings a path can take once more layers of percent-encoding are peeled off. */
function spellings(path: string): string[] {
  const out = [path];
  let current = path;
  for (let i = 0; i < MAX_DECODES && /%[0-9a-f]{2}/i.test(current); i++) {
    try {
      current = decodeURIComponent(current);
    } catch {
      break;
    }
    out.push(current);
  }
  return out;
}

const segmentsOf = (spelling: string) => spelling.replaceAll('\\', '/').split('/');

/** Each rule is checked on every spelling before the next rule, so a path gets its most telling refusal. */
const RULES: Array<[(spelling: string) => boolean, string]> = [
  [(p) => segmentsOf(p).includes('..'), 'Path traversal is not allowed'],
  [(p) => p.includes('\0'), 'Null bytes are not allowed in paths'],
  [(p) => /^[\\/]|^[a-z]:/i.test(p), 'Absolute paths are not allowed'],
  [(p) => segmentsOf(p).some((s) => s.startsWith('.') && s !== '.'), 'Hidden files and folders are not allowed'],
];

/**
 * The path's segments relative to the site root, after refusing `..` (in any percent-encoded or
 * backslash spelling), absolute paths, NUL and hidden names. `.` and empty segments drop out, so
 * `.` is the root itself.
 */
export function relativeSegments(path: string): string[] {
  const all = spellings(path);
  for (const [breaks, message] of RULES) if (all.some(breaks)) throw new SitePathError(message);
  return path.split('/').filter((s) => s !== '' && s !== '.');
}

async function deepestExisting(path: string): Promise<string> {
  for (let current = path; ; current = dirname(current)) {
    try {
      await lstat(current);
      return current;
    } catch {
      if (dirname(current) === current) return current;
    }
  }
}

/**
 * The absolute path of `segments` inside `root`, refused when an existing part of it is a symlink
 * that leads out of the site (the part that does not exist yet cannot lead anywhere).
 */
export async function resolveInside(root: string, segments: readonly string[]): Promise<string> {
  const target = join(root, ...segments);
  const realRoot = await realpath(root).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? recreateRoot(root) : Promise.reject(error)));
  const real = await realpath(await deepestExisting(target));
  if (real !== realRoot && !real.startsWith(realRoot + sep)) throw new SitePathError('Path leads outside the site');
  return target;
}

/**
 * A site whose folder was deleted by hand gets an empty one again (the record says the site exists,
 * and nginx serves from that folder) instead of a 500 on every file route. Not recursive: without
 * the sites root itself the box is broken in a way an empty folder would hide.
 */
async function recreateRoot(root: string): Promise<string> {
  await mkdirWithMode(root, 0o755).catch((error: NodeJS.ErrnoException) => (error.code === 'EEXIST' ? undefined : Promise.reject(error)));
  return realpath(root);
}

/** `relativeSegments` then `resolveInside`: the checked absolute path and its site-relative spelling. */
export async function sitePath(root: string, path: string): Promise<{ absolute: string; relative: string; segments: string[] }> {
  const segments = relativeSegments(path);
  return { absolute: await resolveInside(root, segments), relative: segments.join('/') || '.', segments };
}
