import { createLogger, type Logger } from '../log.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { fingerprint, load, Loader, readSnapshotText } from './collection-loader.ts';
import { DEFAULT_MODE, type RecordCollectionOptions } from './collection-options.ts';
import { InvalidRecordError } from './collection.ts';
import { JournalWriter, memoryJournal, type Journal, type JournalOp } from './journal.ts';
import { describeZodIssues } from './zod-issues.ts';

export { InvalidRecordError };
export type { Persistence, RecordCollectionOptions } from './collection-options.ts';

/** For collections opened without a logger (tools, tests): one for all of them, made when first needed. */
let defaultLog: Logger | undefined;
const DEFAULT_SNAPSHOT_RETRY_MS = 1000;
const MAX_SNAPSHOT_RETRY_MS = 60_000;

/** The final snapshot of a clean shutdown could not be written; the journals still hold every change. */
export class SnapshotWriteError extends Error {
  constructor(file: string, cause: unknown) {
    super(`The snapshot ${file} could not be written (${cause instanceof Error ? cause.message : String(cause)}); its journals keep every change and the next start replays them`, { cause });
    this.name = 'SnapshotWriteError';
  }
}

/** What an `edit` sees and changes. Records are immutable: `put` a changed copy. */
export interface RecordDraft<R> {
  readonly size: number;
  get(key: string): R | undefined;
  has(key: string): boolean;
  values(): IterableIterator<R>;
  /** Inserts the record, or replaces the one with the same key in place. */
  put(record: R): void;
  delete(key: string): boolean;
}

export interface RecordChange<R> {
  key: string;
  before: R | undefined;
  after: R | undefined;
}

/** Told of every accepted change; `null` means anything may have changed (a whole-collection update, a failed write). */
export type ChangeListener<R> = (changes: readonly RecordChange<R>[] | null) => void;

/** Told of every batch written to the journal: how many changes it held and how long the synchronized append took. */
export type WriteObserver = (write: { changes: number; seconds: number }) => void;

type Undo<R> = { key: string; before: R | undefined } | { all: Map<string, R> };

interface Batch<R> {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
  ops: JournalOp<R>[];
  undo: Undo<R>[];
}

function newBatch<R>(): Batch<R> {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject, ops: [], undo: [] };
}

const DEFAULT_COMPACT_AFTER_BYTES = 1024 * 1024;

const afterIo = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Records with a unique key, served from memory and written as a journal: each batch of changes is
 * one appended line, synchronized to disk (O_DSYNC), so a write costs what it changes. Once the
 * journal outgrows the snapshot, the snapshot is rewritten in the background and the journals
 * before it removed.
 *
 * `edit(fn)` runs `fn` synchronously on the live records through a `RecordDraft`, so check-then-act
 * cannot interleave with another change, and a throwing `fn` changes nothing. Changes made while a
 * batch is being written share the next one (group commit); each caller is answered once the batch
 * holding its change is on disk. A failed write undoes its changes and those accepted after it, and
 * fails every caller built on them. `update(fn)` is the whole-collection form (a copy of every record).
 */
export class RecordCollection<R> {
  readonly #options: RecordCollectionOptions<R>;
  readonly #journal: Journal;
  readonly #listeners: ChangeListener<R>[] = [];
  #writeObserver: WriteObserver | null = null;
  #records: Map<string, R>;
  #array: readonly R[] | null = null;
  #version = 0;
  #snapshotBytes: number;
  #pending: Batch<R> | null = null;
  #inFlight: Batch<R> | null = null;
  #writes: Promise<void> = Promise.resolve();
  #compaction: Promise<void> | null = null;
  /** The snapshot holds every record: no journal has frames since it was written. */
  #folded: boolean;
  /** Fingerprints of the snapshot texts this process loaded or wrote, newest last (see readSnapshot). */
  readonly #ownSnapshots: string[] = [];
  /** Snapshot writes failed in a row; the journals hold every change meanwhile. */
  #snapshotFailures = 0;
  #snapshotRetry: NodeJS.Timeout | null = null;
  readonly #log: Pick<Logger, 'error' | 'info'>;
  /**
   * Every record goes through the schema the loader checks it with before it is accepted: a record
   * the next start would refuse is refused now, while refusing it costs one request and not the box.
   */
  readonly #parse = (record: R): R => {
    const parsed = this.#options.record.safeParse(record);
    if (!parsed.success) throw new InvalidRecordError(this.file, describeZodIssues(parsed.error.issues));
    return parsed.data;
  };

  private constructor(options: RecordCollectionOptions<R>, records: Map<string, R>, journal: Journal, snapshotBytes: number, snapshotFingerprint: string) {
    this.#folded = journal.bytes === 0;
    this.#ownSnapshots.push(snapshotFingerprint);
    this.#options = options;
    this.#log = options.log ?? (defaultLog ??= createLogger());
    this.#records = records;
    this.#journal = journal;
    this.#snapshotBytes = snapshotBytes;
  }

  static async open<R>(options: RecordCollectionOptions<R>): Promise<RecordCollection<R>> {
    if (options.persistence === 'memory') return new RecordCollection(options, new Map(), memoryJournal, 0, fingerprint('[]'));
    const { records, snapshotBytes, snapshotFingerprint, rewrite, journalBytes, lastGeneration } = await load(options);
    const writer = new JournalWriter(options.file, lastGeneration + 1, journalBytes, options.mode ?? DEFAULT_MODE);
    const collection = new RecordCollection(options, records, writer, snapshotBytes, snapshotFingerprint);
    // a snapshot this release would write otherwise is written its way at the next snapshot (at the latest on shutdown)
    if (rewrite) collection.#folded = false;
    return collection;
  }

  /**
   * The snapshot file as it is now. `own` when this process loaded or wrote exactly that text;
   * otherwise it was edited from outside, and `records` are what the edit holds (validated: a bad
   * edit throws a StoreLoadError naming the file).
   */
  async readSnapshot(): Promise<{ own: true } | { own: false; records: R[] }> {
    const text = await readSnapshotText(this.file);
    if (this.#ownSnapshots.includes(fingerprint(text))) return { own: true };
    const loader = new Loader(this.#options);
    loader.snapshot(text);
    return { own: false, records: [...loader.records.values()] };
  }

  /** The records as the disk holds them now (snapshot and journals), as the next start would load them. */
  async onDisk(): Promise<R[]> {
    const { records } = await load({ ...this.#options, listing: undefined }, false);
    return [...records.values()];
  }

  get file(): string {
    return this.#options.file;
  }

  /** Every record, in insertion order. Read-only; built once per change, so hot paths use `get`. */
  get value(): readonly R[] {
    return (this.#array ??= Object.freeze([...this.#records.values()]));
  }

  get size(): number {
    return this.#records.size;
  }

  /** Increases with every accepted change; memoized views key on it. */
  get version(): number {
    return this.#version;
  }

  get(key: string): R | undefined {
    return this.#records.get(key);
  }

  has(key: string): boolean {
    return this.#records.has(key);
  }

  values(): IterableIterator<R> {
    return this.#records.values();
  }

  keyOf(record: R): string {
    return this.#options.key(record);
  }

  /** Changes some records; answered once the change is on disk (at once, or with the write it read from, when nothing changed). */
  edit<X>(change: (draft: RecordDraft<R>) => X): Promise<X> {
    const draft = new Draft(this.#records, this.#options.key, this.#parse);
    let result: X;
    try {
      result = change(draft);
      if (result instanceof Promise) throw new TypeError('update functions must be synchronous');
    } catch (error) {
      draft.undoAll();
      return Promise.reject(error);
    }
    if (draft.changes.length === 0) {
      // Nothing to write, but what `change` read may still be on its way to the disk.
      const writing = this.#pending ?? this.#inFlight;
      return writing ? writing.promise.then(() => result) : Promise.resolve(result);
    }
    const ops = draft.changes.map(({ key, after }): JournalOp<R> => (after === undefined ? ['d', key] : ['p', after]));
    return this.#accept(ops, draft.changes, draft.changes).then(() => result);
  }

  /** The whole-collection form: `change` gets a copy of every record (cost follows the collection; prefer `edit`). */
  update<X>(change: (draft: R[]) => X): Promise<X> {
    let result: X;
    const next = new Map<string, R>();
    try {
      const draft = structuredClone([...this.#records.values()]);
      result = change(draft);
      if (result instanceof Promise) throw new TypeError('update functions must be synchronous');
      for (const record of draft.map(this.#parse)) {
        const key = this.#options.key(record);
        if (next.has(key)) throw new TypeError(`${this.file}: two records with the key '${key}'`);
        next.set(key, Object.freeze(record));
      }
    } catch (error) {
      return Promise.reject(error);
    }
    const before = this.#records;
    this.#records = next;
    return this.#accept([['a', [...next.values()]]], [{ all: before }], null).then(() => result);
  }

  /** A value derived from the records, recomputed only after they change. */
  memo<X>(derive: (value: readonly R[]) => X): () => X {
    let version = -1;
    let cached: X;
    return () => {
      if (version !== this.#version) {
        cached = derive(this.value);
        version = this.#version;
      }
      return cached;
    };
  }

  /** Keeps an index up to date change by change instead of rebuilding it from every record. */
  watch(listener: ChangeListener<R>): void {
    this.#listeners.push(listener);
  }

  /**
   * Folds the journals into the snapshot (a clean shutdown): the `.json` file alone is then the
   * collection, readable as it is for a backup or a support request.
   */
  async compact(): Promise<void> {
    await this.flush();
    // a memory collection has no snapshot file: writing one would put it on disk after all
    if (this.#folded || this.#options.persistence === 'memory') return;
    const failure = await this.#startCompaction();
    await this.flush();
    // Shutting down: no retry comes, and the caller (the process's exit status) must hear of it.
    this.#cancelSnapshotRetry();
    if (failure) throw new SnapshotWriteError(this.file, failure);
  }

  /** One observer of the journal writes (metrics); a later call replaces it. */
  observeWrites(observer: WriteObserver): void {
    this.#writeObserver = observer;
  }

  /** Resolves once every accepted change is on disk (or has failed) and no snapshot is being written; closes the journal file. */
  async flush(): Promise<void> {
    await this.#writes;
    await this.#compaction;
    await this.#journal.close();
  }

  #accept(ops: JournalOp<R>[], undo: Undo<R>[], changes: readonly RecordChange<R>[] | null): Promise<void> {
    this.#changed(changes);
    if (!this.#pending) {
      this.#pending = newBatch();
      // Written once the requests already read from the sockets have made their changes too: one
      // synchronized write for all of them instead of one each.
      this.#writes = this.#writes.then(afterIo).then(() => this.#writeBatch());
    }
    this.#pending.ops.push(...ops);
    this.#pending.undo.push(...undo);
    return this.#pending.promise;
  }

  #changed(changes: readonly RecordChange<R>[] | null): void {
    this.#folded = false;
    this.#version++;
    this.#array = null;
    for (const listener of this.#listeners) listener(changes);
  }

  async #writeBatch(): Promise<void> {
    const batch = this.#pending;
    if (!batch) return;
    this.#pending = null;
    this.#inFlight = batch;
    try {
      const started = performance.now();
      await this.#journal.append(`${JSON.stringify(batch.ops)}\n`);
      this.#writeObserver?.({ changes: batch.ops.length, seconds: (performance.now() - started) / 1000 });
      batch.resolve();
    } catch (error) {
      // Changes accepted meanwhile were built on the failed ones: they go too, and their callers are told.
      const later = this.#pending as Batch<R> | null;
      this.#pending = null;
      this.#restore([...batch.undo, ...(later?.undo ?? [])]);
      batch.reject(error);
      later?.reject(error);
    } finally {
      this.#inFlight = null;
    }
    this.#compactIfDue();
  }

  #restore(undo: readonly Undo<R>[]): void {
    this.#records = undone(this.#records, undo, true);
    this.#changed(null);
  }

  /**
   * Runs between two batches: the next one goes to a new journal, and the snapshot of everything
   * on disk so far (the records without the changes still waiting) is written in the background.
   * A crash at any point leaves the old or the new snapshot with every journal it needs: replaying
   * a journal over a snapshot that already holds it gives the same records.
   */
  #compactIfDue(): void {
    if (this.#compaction || this.#journal.bytes < Math.max(this.#options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES, this.#snapshotBytes)) return;
    void this.#startCompaction();
  }

  /** Resolves with the error of a snapshot that could not be written (already logged, retry scheduled), or null. */
  #startCompaction(): Promise<unknown> {
    this.#cancelSnapshotRetry();
    const durable = this.#pending ? undone(this.#records, this.#pending.undo, false) : this.#records;
    const records = [...durable.values()];
    const covered = this.#journal.rotate();
    const written = this.#writeSnapshot(records, covered);
    this.#compaction = written.then(() => undefined).finally(() => (this.#compaction = null));
    return written;
  }

  async #writeSnapshot(records: readonly R[], covered: number): Promise<unknown> {
    try {
      const text = JSON.stringify(records);
      const written = fingerprint(text);
      // known before it lands, so a reader of the new file never mistakes it for an outside edit
      this.#ownSnapshots.push(written);
      if (this.#ownSnapshots.length > OWN_SNAPSHOTS_KEPT) this.#ownSnapshots.shift();
      await writeFileAtomic(this.file, text, { mode: this.#options.mode ?? DEFAULT_MODE });
      // every record in it went through the schema (#parse, or the load's check)
      this.#options.checked?.note(this.file, written, this.#options.record);
      this.#snapshotBytes = text.length;
      await this.#journal.removeUpTo(covered);
      this.#folded = this.#journal.bytes === 0;
    } catch (error) {
      // Nothing is lost: the journals stay (the truth until a snapshot holds them) and a later try folds them.
      this.#snapshotFailed(error);
      return error;
    }
    if (this.#snapshotFailures > 0) this.#log.info(`Snapshot ${this.file} written after ${this.#snapshotFailures} failed ${this.#snapshotFailures === 1 ? 'try' : 'tries'}`);
    this.#snapshotFailures = 0;
    return null;
  }

  #snapshotFailed(error: unknown): void {
    this.#snapshotFailures++;
    const first = this.#options.snapshotRetryMs ?? DEFAULT_SNAPSHOT_RETRY_MS;
    const wait = Math.min(first * 2 ** (this.#snapshotFailures - 1), Math.max(first, MAX_SNAPSHOT_RETRY_MS));
    this.#log.error(
      `Snapshot ${this.file} could not be written (${error instanceof Error ? error.message : String(error)}); its journals keep every change, next try in ${wait / 1000} s`,
    );
    this.#cancelSnapshotRetry();
    // unref: a pending retry never keeps a process alive, and a clean shutdown tries once more itself
    this.#snapshotRetry = setTimeout(() => {
      this.#snapshotRetry = null;
      // Through the write chain, so that it starts between two batches, as a threshold compaction does.
      this.#writes = this.#writes.then(() => {
        if (!this.#compaction && !this.#folded) void this.#startCompaction();
      });
    }, wait).unref();
  }

  #cancelSnapshotRetry(): void {
    if (this.#snapshotRetry) clearTimeout(this.#snapshotRetry);
    this.#snapshotRetry = null;
  }
}

/** The records before `undo` (newest step first), changed in place or in a copy that leaves `records` and `undo` as they are. */
function undone<R>(records: Map<string, R>, undo: readonly Undo<R>[], inPlace: boolean): Map<string, R> {
  let map = inPlace ? records : new Map(records);
  for (const step of undo.toReversed()) {
    if ('all' in step) map = inPlace ? step.all : new Map(step.all);
    else if (step.before === undefined) map.delete(step.key);
    else map.set(step.key, step.before);
  }
  return map;
}

class Draft<R> implements RecordDraft<R> {
  readonly changes: RecordChange<R>[] = [];

  constructor(
    private readonly records: Map<string, R>,
    private readonly key: (record: R) => string,
    private readonly parse: (record: R) => R,
  ) {}

  get size(): number {
    return this.records.size;
  }

  get(key: string): R | undefined {
    return this.records.get(key);
  }

  has(key: string): boolean {
    return this.records.has(key);
  }

  values(): IterableIterator<R> {
    return this.records.values();
  }

  put(input: R): void {
    const record = this.parse(input);
    const key = this.key(record);
    this.changes.push({ key, before: this.records.get(key), after: record });
    this.records.set(key, Object.freeze(record));
  }

  delete(key: string): boolean {
    const before = this.records.get(key);
    if (before === undefined) return false;
    this.changes.push({ key, before, after: undefined });
    this.records.delete(key);
    return true;
  }

  undoAll(): void {
    undone(this.records, this.changes, true);
    this.changes.length = 0;
  }
}

const OWN_SNAPSHOTS_KEPT = 3;
