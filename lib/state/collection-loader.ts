import { createHash } from 'node:crypto';
import { chmod, readdir, readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { z, type ZodType } from 'zod';
import { removeStaleTempFiles } from './atomic-write.ts';
import { DEFAULT_MODE, type RecordCollectionOptions } from './collection-options.ts';
import { StoreLoadError } from './collection.ts';
import { journalsOf, readFrames } from './journal.ts';
import { describeZodIssues } from './zod-issues.ts';

// Reading a record collection back from disk: its snapshot, then the journal frames after it.

export const fingerprint = (text: string) => createHash('sha256').update(text).digest('base64');

/** A missing snapshot is an empty collection. */
export function readSnapshotText(file: string): Promise<string> {
  return readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '[]';
    throw new StoreLoadError(file, error.message);
  });
}

/** Reads the snapshot and replays the journals after it; at start, removes the temp files of an interrupted snapshot write. */
export async function load<R>(options: RecordCollectionOptions<R>, starting = true) {
  const { file } = options;
  const listed = options.listing ?? (await readdir(dirname(file)).catch(() => undefined));
  const names = listed ?? [];
  if (starting) {
    await removeStaleTempFiles(file, names);
    await narrowModes(options, names);
  }
  const loader = new Loader(options);
  // A snapshot the directory listing lacks is not opened: at start most collections have none,
  // and each failed open builds an error with its stack. An unreadable directory reads as before.
  const absent = listed !== undefined && !listed.includes(basename(file));
  const text = absent ? '[]' : await readSnapshotText(file);
  const snapshotFingerprint = fingerprint(text);
  const { checked } = options;
  let rewrite = false;
  if (checked?.has(file, snapshotFingerprint, options.record)) loader.checkedSnapshot(text);
  else {
    loader.snapshot(text);
    // Checked in full: remembered when the text is what this release writes of these records (so
    // reading it as it is gives the records the check gave), else rewritten so the next start can skip.
    if (checked && !absent) {
      if (JSON.stringify([...loader.records.values()]) === text) checked.note(file, snapshotFingerprint, options.record);
      else rewrite = true;
    }
  }
  const journals = journalsOf(file, names);
  let journalBytes = 0;
  for (const journal of journals) {
    const { frames, bytes } = await readFrames(journal).catch((error: Error) => {
      throw new StoreLoadError(journal.path, error.message);
    });
    for (const frame of frames) loader.frame(journal.path, frame);
    journalBytes += bytes;
  }
  return { records: loader.records, snapshotBytes: text.length, snapshotFingerprint, rewrite, journalBytes, lastGeneration: journals.at(-1)?.generation ?? 0 };
}

/**
 * Files an earlier release wrote with a wider mode (tunnels and sites were 0644) get the
 * collection's mode at start, rather than only once a snapshot replaces them. Best effort: a file
 * the panel cannot chmod still loads.
 */
async function narrowModes<R>(options: RecordCollectionOptions<R>, names: readonly string[]): Promise<void> {
  const mode = options.mode ?? DEFAULT_MODE;
  const paths = journalsOf(options.file, names).map((journal) => journal.path);
  if (names.includes(basename(options.file))) paths.push(options.file);
  await Promise.all(paths.map((path) => chmod(path, mode).catch(() => {})));
}

/** Builds the records from a snapshot and the journal frames after it, validating each record. */
export class Loader<R> {
  readonly records = new Map<string, R>();
  readonly #list: ZodType<R[]>;

  constructor(private readonly options: RecordCollectionOptions<R>) {
    this.#list = z.array(options.record);
  }

  snapshot(text: string): void {
    const { file } = this.options;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new StoreLoadError(file, `not valid JSON (${(error as Error).message})`);
    }
    this.#replaceAll(file, raw);
  }

  /**
   * A snapshot text this release checked with the same schema (checked-snapshots.ts): the records
   * are what the check gave when this text was written, so it is parsed without the check.
   */
  checkedSnapshot(text: string): void {
    this.#keep(this.options.file, JSON.parse(text) as R[]);
  }

  frame(path: string, frame: unknown[]): void {
    for (const op of frame) {
      if (!Array.isArray(op)) throw new StoreLoadError(path, 'a change is not an array');
      const [kind, data] = op as [unknown, unknown];
      if (kind === 'd' && typeof data === 'string') this.records.delete(data);
      else if (kind === 'p') {
        const parsed = this.options.record.safeParse(data);
        if (!parsed.success) throw new StoreLoadError(path, describeZodIssues(parsed.error.issues));
        this.records.set(this.options.key(parsed.data), Object.freeze(parsed.data));
      } else if (kind === 'a') this.#replaceAll(path, data);
      else throw new StoreLoadError(path, `unknown change ${JSON.stringify(kind)}`);
    }
  }

  #replaceAll(file: string, raw: unknown): void {
    const parsed = this.#list.safeParse(raw);
    if (!parsed.success) throw new StoreLoadError(file, describeZodIssues(parsed.error.issues));
    this.#keep(file, parsed.data);
  }

  /** `records`, keyed, in place of the ones before: a key given twice is refused. */
  #keep(file: string, records: readonly R[]): void {
    this.records.clear();
    for (const record of records) {
      const key = this.options.key(record);
      if (this.records.has(key)) throw new StoreLoadError(file, `two records with the key '${key}'`);
      this.records.set(key, Object.freeze(record));
    }
  }
}
