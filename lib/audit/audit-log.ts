import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isoNow, type Clock } from '../clock.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import { journalsOf, JournalWriter, type JournalName } from '../state/journal.ts';
import { readAuditPage, type AuditPage, type AuditQuery } from './audit-reader.ts';
import { SYSTEM_ACTOR, type AuditEntry, type AuditRecord, type AuditSink } from './entry.ts';

export type { AuditCursor, AuditPage, AuditQuery } from './audit-reader.ts';

export interface AuditLogOptions {
  /** `<dataDir>/audit`: the files `audit.<generation>.journal`, one JSON entry per line. */
  dir: string;
  clock: Clock;
  /** A file is closed (rotated) once it holds this many bytes. */
  rotateBytes?: number;
  /** Rotated files kept besides the current one; older ones are removed. */
  keep?: number;
  /** Entries wait this long for others to share their synchronized write (20 ms). */
  commitWindowMs?: number;
  /** `memory`: nothing on disk (the testing kit's in-memory store); the entries stay in memory. */
  persistence?: 'disk' | 'memory';
  /** Where a write that fails (and the recovery after it) is told; nobody else hears of it. */
  log?: Pick<Logger, 'warn' | 'info'>;
  /** A failed write is tried again after this long (5 s); entries wait in memory meanwhile. */
  retryMs?: number;
}

const DEFAULT_ROTATE_BYTES = 4 * 1024 * 1024;
const DEFAULT_KEEP = 5;
// Nobody waits on an audit write (the answer has gone), so entries can gather for a while: at 2,000
// requests/s one synchronized write per 40 entries instead of per one or two, each write costing
// about 170 µs of CPU here. A crash of the process loses nothing written; a power cut, at most this.
const DEFAULT_COMMIT_WINDOW_MS = 20;
/** A log kept in memory (the testing kit) holds the newest this many; so do entries waiting for a disk that fails. */
const MEMORY_ENTRIES = 10_000;
const DEFAULT_RETRY_MS = 5_000;

/**
 * The append-only audit log. Entries accepted while a write is on its way share the next one
 * (group commit, like the record collections): one O_DSYNC append per batch through the store's
 * JournalWriter. Each start and each rotation begins a new generation; the oldest beyond `keep`
 * rotated files are removed.
 */
export class AuditLog implements AuditSink {
  readonly #options: Required<Omit<AuditLogOptions, 'persistence' | 'log'>>;
  readonly #log: AuditLogOptions['log'];
  readonly #snapshot: string;
  readonly #onDisk: boolean;
  /** Made on the first write (or by `open`); a directory that cannot be made is tried again later. */
  #opening: Promise<JournalWriter> | null = null;
  readonly #memory: string[] = [];
  #queued: string[] = [];
  #writing: Promise<void> | null = null;
  #retry: ReturnType<typeof setTimeout> | null = null;
  /** Set from a failed write until one succeeds: the failure and the recovery are logged once each. */
  #failure: string | null = null;
  #dropped = 0;

  constructor(options: AuditLogOptions) {
    const { log, persistence, ...rest } = options;
    this.#options = { rotateBytes: DEFAULT_ROTATE_BYTES, keep: DEFAULT_KEEP, commitWindowMs: DEFAULT_COMMIT_WINDOW_MS, retryMs: DEFAULT_RETRY_MS, ...rest };
    this.#log = log;
    this.#snapshot = join(options.dir, 'audit.json');
    this.#onDisk = persistence !== 'memory';
  }

  /**
   * Makes the directory and opens the log, or throws one line that says which directory cannot be
   * used: the server's start calls it, so that an unusable audit directory stops it with that line.
   */
  async open(): Promise<void> {
    if (this.#onDisk) await this.#writer();
  }

  #writer(): Promise<JournalWriter> {
    return (this.#opening ??= this.#openWriter().catch((error: unknown) => {
      this.#opening = null; // the next attempt tries again
      throw error;
    }));
  }

  async #openWriter(): Promise<JournalWriter> {
    const dir = this.#options.dir;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const last = (await this.#files()).at(-1)?.generation ?? 0;
      return new JournalWriter(this.#snapshot, last + 1, 0, 0o600);
    } catch (error) {
      throw new Error(`Audit log directory ${dir} cannot be used: ${errorMessage(error)}`);
    }
  }

  record(entry: AuditRecord): void {
    const line = JSON.stringify({ time: isoNow(this.#options.clock), actor: SYSTEM_ACTOR, ...entry } satisfies AuditEntry);
    if (!this.#onDisk) {
      this.#memory.push(line);
      if (this.#memory.length > MEMORY_ENTRIES) this.#memory.splice(0, this.#memory.length - MEMORY_ENTRIES);
      return;
    }
    this.#queued.push(line);
    if (this.#queued.length > MEMORY_ENTRIES) this.#dropped += this.#queued.splice(0, this.#queued.length - MEMORY_ENTRIES).length;
    // while a failed write waits for its retry, entries gather for it
    if (!this.#retry) this.#writing ??= this.#drain();
  }

  /** Waits until every accepted entry is on disk, or the write that holds them has failed (then they wait for its retry). */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  /** Flushes (one last try for entries that wait) and closes the file (the next entry would open it again). */
  async close(): Promise<void> {
    this.#cancelRetry();
    if (this.#queued.length > 0) this.#writing ??= this.#drain();
    await this.flush();
    this.#cancelRetry();
    if (this.#queued.length > 0) this.#log?.warn(`audit log: ${this.#queued.length} entries were never written: ${this.#failure}`);
    const opening = this.#opening;
    this.#opening = null;
    await (await opening?.catch(() => null))?.close();
  }

  /** Newest first. */
  async read(query: AuditQuery): Promise<AuditEntry[]> {
    return (await this.page(query)).entries;
  }

  /** Newest first, `query.limit` at most, from `query.before` on. */
  async page(query: AuditQuery): Promise<AuditPage> {
    await this.flush();
    return readAuditPage(query, this.#newestFirst());
  }

  /** The log's lines in chunks, the newest chunk first: the memory, or each file from the current generation back. */
  async *#newestFirst(): AsyncGenerator<readonly string[]> {
    if (!this.#onDisk) {
      yield this.#memory;
      return;
    }
    for (const journal of (await this.#files()).reverse()) yield (await readFile(journal.path, 'utf8').catch(() => '')).split('\n');
  }

  /** Never rejects: a failure is logged and the entries wait for a retry. */
  async #drain(): Promise<void> {
    try {
      const writer = await this.#writer();
      while (this.#queued.length > 0) {
        await new Promise((resolve) => setTimeout(resolve, this.#options.commitWindowMs));
        const batch = this.#queued;
        this.#queued = [];
        try {
          // a failed append moves the writer to a new generation: the batch goes there on the retry
          await writer.append(`${batch.join('\n')}\n`);
        } catch (error) {
          this.#queued.unshift(...batch);
          throw error;
        }
        if (writer.bytes >= this.#options.rotateBytes) await this.#rotate(writer);
      }
      this.#recovered();
    } catch (error) {
      this.#failed(error);
    } finally {
      this.#writing = null;
    }
  }

  #failed(error: unknown): void {
    const message = errorMessage(error);
    if (this.#failure === null) this.#log?.warn(`audit log: cannot write (${message}); entries wait in memory, retrying every ${this.#options.retryMs} ms`);
    this.#failure = message;
    this.#cancelRetry();
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (this.#queued.length > 0) this.#writing ??= this.#drain();
    }, this.#options.retryMs);
    this.#retry.unref();
  }

  #recovered(): void {
    if (this.#failure === null) return;
    const dropped = this.#dropped > 0 ? `; ${this.#dropped} entries beyond ${MEMORY_ENTRIES} were dropped` : '';
    this.#log?.info(`audit log: writing again${dropped}`);
    this.#failure = null;
    this.#dropped = 0;
  }

  #cancelRetry(): void {
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
  }

  async #rotate(writer: JournalWriter): Promise<void> {
    writer.rotate();
    const files = await this.#files();
    const old = files.slice(0, Math.max(0, files.length - this.#options.keep));
    if (old.length > 0) await writer.removeUpTo(old.at(-1)!.generation);
  }

  async #files(): Promise<JournalName[]> {
    return journalsOf(this.#snapshot, await readdir(this.#options.dir));
  }
}
