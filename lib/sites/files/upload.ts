import { randomUUID } from 'node:crypto';
import { copyFile, chmod, open, rename, rm, stat } from 'node:fs/promises';
import { mkdirWithMode } from '../../system/common/fs.ts';
import { dirname, join } from 'node:path';
import { errorMessage, storageFailure } from '../../errors.ts';
import { disallowedExtension } from './extensions.ts';
import { relativeSegments, resolveInside, SitePathError } from './safe-path.ts';

/** An uploaded file as the multipart body hands it over: a temp file on the Node edge, a stream elsewhere. */
export interface IncomingFile {
  originalName: string;
  path: string | undefined;
  stream(): ReadableStream<Uint8Array>;
}

interface Placement {
  file: IncomingFile;
  target: string;
  relative: string;
}

/** The kind of what is at `path` (symlinks followed), or null when nothing is. */
async function kindAt(path: string): Promise<'file' | 'folder' | null> {
  try {
    return (await stat(path)).isDirectory() ? 'folder' : 'file';
  } catch {
    return null;
  }
}

/** What the files planned so far will make: their paths, and every folder above them. */
interface Planned {
  files: Set<string>;
  folders: Set<string>;
}

/**
 * Refuses a target whose folders are files (on disk or earlier in the same upload), or which is a
 * folder itself; then counts it as planned.
 */
async function assertFits(root: string, segments: readonly string[], planned: Planned): Promise<void> {
  let onDisk = true;
  for (let depth = 1; depth <= segments.length; depth++) {
    const relative = segments.slice(0, depth).join('/');
    const last = depth === segments.length;
    let kind: 'file' | 'folder' | null = planned.files.has(relative) ? 'file' : planned.folders.has(relative) ? 'folder' : null;
    // below a missing folder nothing exists on disk either
    if (kind === null && onDisk) kind = await kindAt(join(root, ...segments.slice(0, depth)));
    if (kind === null) onDisk = false;
    if (!last && kind === 'file') throw new SitePathError(`'${relative}' is a file, not a folder`);
    if (last && kind === 'folder') throw new SitePathError(`'${relative}' is a folder`);
    (last ? planned.files : planned.folders).add(relative);
  }
}

/** Every name is checked before anything is written, so a refused upload leaves the site as it was. */
async function plan(root: string, dir: string, files: readonly IncomingFile[]): Promise<Placement[]> {
  const base = relativeSegments(dir);
  const placements: Placement[] = [];
  const planned: Planned = { files: new Set(), folders: new Set() };
  for (const file of files) {
    const name = relativeSegments(file.originalName);
    if (name.length === 0) throw new SitePathError('Every file needs a name');
    const banned = disallowedExtension(name.at(-1)!);
    if (banned) throw new SitePathError(`Files of type '${banned}' are not allowed`);
    const segments = [...base, ...name];
    const target = await resolveInside(root, segments);
    await assertFits(root, segments, planned);
    placements.push({ file, target, relative: segments.join('/') });
  }
  return placements;
}

/** A failure's reason without the server paths node's file errors carry (`ENAMETOOLONG: name too long`). */
function reasonOf(error: unknown): string {
  const { code, syscall } = error as NodeJS.ErrnoException;
  const message = errorMessage(error);
  if (!code || !syscall) return message;
  const at = message.indexOf(`, ${syscall}`);
  return at === -1 ? code : message.slice(0, at);
}

async function writeStream(stream: ReadableStream<Uint8Array>, to: string): Promise<void> {
  const handle = await open(to, 'wx', 0o644);
  try {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await handle.write(value);
    }
  } finally {
    await handle.close();
  }
}

/** The temp file moves in (copied when it sits on another file system), else the stream is written out. */
async function bringIn(file: IncomingFile, to: string): Promise<void> {
  if (!file.path) await writeStream(file.stream(), to);
  else {
    try {
      await rename(file.path, to);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      await copyFile(file.path, to);
    }
  }
  // nginx's workers read it as another user; the panel's unit runs with UMask=0077
  await chmod(to, 0o644);
}

/**
 * Each file lands under a hidden temp name next to its target and is renamed over it when
 * complete: a reader (nginx) or a concurrent upload of the same path sees the old file or the new
 * one, never a mix, and an aborted upload leaves nothing (hidden names are never served).
 */
export async function storeUploads(root: string, dir: string, files: readonly IncomingFile[]): Promise<string[]> {
  const placements = await plan(root, dir, files);
  for (const { file, target } of placements) {
    const temp = join(dirname(target), `.upload-${randomUUID()}`);
    try {
      await mkdirWithMode(dirname(target), 0o755, true);
      await bringIn(file, temp);
      await rename(temp, target);
    } catch (error) {
      // the temp file may never have been made (its folder could not be); the store failure is what to report
      await rm(temp, { force: true }).catch(() => undefined);
      // a full or failing disk is the server's fault, not the path's: the error boundary's 500 names it
      if (storageFailure(error)) throw error;
      throw new SitePathError(`could not store ${file.originalName}: ${reasonOf(error)}`);
    }
  }
  return placements.map((p) => p.relative);
}
