import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ZodType } from 'zod';
import { removeStaleTempFiles, writeFileAtomic } from './atomic-write.ts';
import { describeZodIssues } from './zod-issues.ts';

export class StoreLoadError extends Error {
  constructor(readonly file: string, problem: string) {
    super(`Cannot load ${file}: ${problem}. The file was left untouched.`);
    this.name = 'StoreLoadError';
  }
}

/**
 * A value that the collection's own schema refuses: storing it would make the next start fail to
 * load the file, so the change is refused before anything changes (a bug in the caller).
 */
export class InvalidRecordError extends Error {
  constructor(file: string, problem: string) {
    super(`Refused to store an invalid record in ${basename(file)}: ${problem}`);
    this.name = 'InvalidRecordError';
  }
}

export interface CollectionOptions<T> {
  file: string;
  schema: ZodType<T>;
  initial: () => T;
  /** 0o600 unless given: everything in the data directory is the panel's alone. */
  mode?: number;
  /** Indent the JSON for files people edit by hand. */
  pretty?: boolean;
  /**
   * `memory` reads and writes nothing: the value starts from `initial()` and every update is
   * final at once (tests and embedders; see lib/testing.ts). `disk` is the default.
   */
  persistence?: Persistence;
  /** The directory's names, when the caller has listed it: a file not among them is not opened. */
  listing?: readonly string[];
}

export type Persistence = 'disk' | 'memory';

interface Batch {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A JSON document on disk, served from memory.
 *
 * `update(fn)` runs `fn` synchronously on a copy, so check-then-act cannot interleave with another
 * update, and a throwing `fn` changes nothing. Updates made while a write is in flight share the
 * next write (group commit); each caller is answered only once the write holding its change is on
 * disk. A failed write restores the last durable value and fails every caller built on top of it.
 */
export class JsonCollection<T> {
  #value: T;
  #durable: T;
  #version = 0;
  #pending: Batch | null = null;
  #writes: Promise<void> = Promise.resolve();
  readonly #options: CollectionOptions<T>;

  private constructor(options: CollectionOptions<T>, value: T) {
    this.#options = options;
    this.#value = value;
    this.#durable = value;
  }

  static async open<T>(options: CollectionOptions<T>): Promise<JsonCollection<T>> {
    if (options.persistence === 'memory') return new JsonCollection(options, options.initial());
    await removeStaleTempFiles(options.file, options.listing);
    if (options.listing && !options.listing.includes(basename(options.file))) return new JsonCollection(options, options.initial());
    let text: string;
    try {
      text = await readFile(options.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new JsonCollection(options, options.initial());
      throw new StoreLoadError(options.file, (error as Error).message);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new StoreLoadError(options.file, `not valid JSON (${(error as Error).message})`);
    }
    // jitless: compiling zod's fast path costs more at start than the one parse it would speed up
    const parsed = options.schema.safeParse(raw, { jitless: true });
    if (!parsed.success) throw new StoreLoadError(options.file, describeZodIssues(parsed.error.issues));
    return new JsonCollection(options, parsed.data);
  }

  get file(): string {
    return this.#options.file;
  }

  /** The current value. Read-only: change it only through `update`. */
  get value(): T {
    return this.#value;
  }

  /** Increases with every accepted update; memoized views key on it. */
  get version(): number {
    return this.#version;
  }

  /**
   * `validate`, when given, checks the changed copy in place of the whole schema: it must refuse
   * whatever the schema would refuse of a copy whose previous value was valid, and return what the
   * schema's parse would (the configuration checks only the fields an update replaced).
   */
  update<R>(change: (draft: T) => R, validate?: (next: T) => T): Promise<R> {
    let result: R;
    let next: T;
    try {
      next = structuredClone(this.#value);
      result = change(next);
      if (result instanceof Promise) throw new TypeError('update functions must be synchronous');
      // what the next start would refuse to load is refused now, before anything changes
      next = validate ? validate(next) : this.#validated(next);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#value = next;
    this.#version++;
    if (this.#options.persistence === 'memory') return Promise.resolve(result);
    return this.#scheduleWrite().then(() => result);
  }

  /** A value derived from the collection, recomputed only after it changes. */
  memo<R>(derive: (value: T) => R): () => R {
    let version = -1;
    let cached: R;
    return () => {
      if (version !== this.#version) {
        cached = derive(this.#value);
        version = this.#version;
      }
      return cached;
    };
  }

  /** Resolves once every accepted update is on disk (or has failed). */
  async flush(): Promise<void> {
    await this.#writes;
  }

  #validated(value: T): T {
    const parsed = this.#options.schema.safeParse(value, { jitless: true });
    if (!parsed.success) throw new InvalidRecordError(this.#options.file, describeZodIssues(parsed.error.issues));
    return parsed.data;
  }

  #scheduleWrite(): Promise<void> {
    if (!this.#pending) {
      this.#pending = newBatch();
      this.#writes = this.#writes.then(() => this.#writeBatch());
    }
    return this.#pending.promise;
  }

  async #writeBatch(): Promise<void> {
    const batch = this.#pending;
    if (!batch) return;
    this.#pending = null;
    const snapshot = this.#value;
    try {
      await writeFileAtomic(this.#options.file, JSON.stringify(snapshot, null, this.#options.pretty ? 2 : undefined), { mode: this.#options.mode ?? 0o600 });
      this.#durable = snapshot;
      batch.resolve();
    } catch (error) {
      this.#value = this.#durable;
      this.#version++;
      batch.reject(error);
      // Updates accepted meanwhile were built on the failed value: they are lost too, say so.
      const later = this.#pending as Batch | null;
      this.#pending = null;
      later?.reject(error);
    }
  }
}
