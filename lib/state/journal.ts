import { constants, write } from 'node:fs';
import { open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { syncDirectory } from './atomic-write.ts';

/**
 * One change of a record collection: put a record (insert, or replace the one with its key), delete
 * the record with a key, or replace the whole collection.
 */
export type JournalOp<R> = ['p', R] | ['d', string] | ['a', R[]];

export interface JournalName {
  generation: number;
  path: string;
}

const stemOf = (snapshot: string) => basename(snapshot).replace(/\.json$/, '');
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const journalPath = (snapshot: string, generation: number) => join(dirname(snapshot), `${stemOf(snapshot)}.${generation}.journal`);

/** The journals of `snapshot` among the directory entries `names`, oldest first. */
export function journalsOf(snapshot: string, names: readonly string[]): JournalName[] {
  const pattern = new RegExp(`^${escaped(stemOf(snapshot))}\\.(\\d+)\\.journal$`);
  return names
    .map((name) => pattern.exec(name)?.[1])
    .filter((g): g is string => g !== undefined)
    .map((g) => ({ generation: Number(g), path: journalPath(snapshot, Number(g)) }))
    .sort((a, b) => a.generation - b.generation);
}

/**
 * The frames of a journal: one line of JSON (an array of ops) per written batch. A line that does
 * not parse is corruption, except a last line without its newline: a write that a crash (or a
 * failed write, after which appends move to the next generation) cut short, whose callers were
 * never answered.
 */
export async function readFrames(journal: JournalName): Promise<{ frames: unknown[][]; bytes: number }> {
  const text = await readFile(journal.path, 'utf8');
  const lines = text.slice(0, text.lastIndexOf('\n') + 1).split('\n');
  lines.pop();
  const frames = lines.map((line, n) => {
    try {
      const frame = JSON.parse(line) as unknown;
      if (Array.isArray(frame)) return frame as unknown[];
    } catch {}
    throw new Error(`frame ${n + 1} is not a JSON array`);
  });
  return { frames, bytes: text.length };
}

// O_DSYNC: each append returns once its data (and the size that reaches it) is on disk, the same
// guarantee as write + fdatasync in one call to the thread pool instead of two.
const APPEND_DURABLY = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC;

/** One write(2) of the whole frame; a short write is a failed one. */
function writeAll(fd: number, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) =>
    write(fd, data, 0, data.length, null, (error, written) => {
      if (error) reject(error);
      else if (written !== data.length) reject(new Error(`short write: ${written} of ${data.length} bytes`));
      else resolve();
    }),
  );
}

/**
 * Appends batches to `<stem>.<generation>.journal`, one synchronized write per batch. Every start and
 * every failed write begins a new generation, so a file is only ever appended to after frames
 * that are whole. `rotate` also begins one, so that a snapshot of everything before it can be
 * written while appends go on.
 */
/** Where a collection's changes go: a journal file, or nowhere (a store kept in memory only). */
export interface Journal {
  readonly bytes: number;
  append(frame: string): Promise<void>;
  rotate(): number;
  removeUpTo(generation: number): Promise<void>;
  close(): Promise<void>;
}

/** The journal of a memory-only store: it never grows, so the collection never compacts either. */
export const memoryJournal: Journal = {
  bytes: 0,
  append: async () => {},
  rotate: () => 0,
  removeUpTo: async () => {},
  close: async () => {},
};

export class JournalWriter implements Journal {
  #handle: FileHandle | null = null;
  #created = false;
  /** Bytes of whole frames in the current file. */
  #fileBytes = 0;
  #bytes: number;

  constructor(
    private readonly snapshot: string,
    private generation: number,
    /** Journal bytes already on disk since the last snapshot. */
    bytes: number,
    private readonly mode: number,
  ) {
    this.#bytes = bytes;
  }

  /** Bytes journaled since the last rotation (or the last snapshot, at start). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends one frame and returns once it is on disk. */
  async append(frame: string): Promise<void> {
    const data = Buffer.from(frame, 'utf8');
    const handle = this.#handle ?? (await this.#open());
    try {
      await writeAll(handle.fd, data);
    } catch (error) {
      // Its callers are told it failed: cut it off so that no start replays it, and append elsewhere from now on.
      await handle.truncate(this.#fileBytes).catch(() => {});
      this.rotate();
      throw error;
    }
    this.#fileBytes += data.length;
    this.#bytes += data.length;
  }

  /** Switches to the next generation; returns the one closed (a snapshot taken now covers it). */
  rotate(): number {
    const closed = this.generation;
    void this.close().catch(() => {});
    this.generation++;
    this.#created = false;
    this.#fileBytes = 0;
    this.#bytes = 0;
    return closed;
  }

  /** Removes the journals up to `generation`, folded into a snapshot that is on disk. */
  async removeUpTo(generation: number): Promise<void> {
    const names = await readdir(dirname(this.snapshot));
    await Promise.all(journalsOf(this.snapshot, names).filter((j) => j.generation <= generation).map((j) => rm(j.path, { force: true })));
  }

  /** Closes the file; the next append opens it again. */
  async close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = null;
    await handle?.close();
  }

  async #open(): Promise<FileHandle> {
    const path = journalPath(this.snapshot, this.generation);
    const handle = await open(path, APPEND_DURABLY, this.mode);
    try {
      if (!this.#created) {
        await handle.chmod(this.mode); // the umask may have narrowed it
        // The new name must survive a crash before any frame in the file is acknowledged.
        await syncDirectory(dirname(path));
        this.#created = true;
      }
    } catch (error) {
      await handle.close();
      throw error;
    }
    this.#handle = handle;
    return handle;
  }
}
