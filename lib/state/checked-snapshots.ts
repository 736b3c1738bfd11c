// The snapshot texts this release has checked, so that a start reads its records without checking
// each against its schema again (at 1,000 tunnels that check was the largest part of what a
// restart spends on the box's size). For each collection: the SHA-256 of the snapshot text as this
// release wrote it (or found it, checked, exactly as it would write it) and the fingerprint of the
// schema it was checked with. Any other text (a hand edit, a file from elsewhere or from another
// release, a restore) hashes differently and is checked in full. A cache of the store, never a
// record: losing it costs one start that checks everything. `<dataDir>/checked-snapshots.json`,
// mode 0600, replaced atomically (a rename) but not synced to disk: a crash that loses a note only
// costs that full check.
import { chmod, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ZodType } from 'zod';
import { removeStaleTempFiles, writeFileAtomic } from './atomic-write.ts';
import { schemaFingerprint } from './schema-fingerprint.ts';

export const CHECKED_SNAPSHOTS_FILE = 'checked-snapshots.json';

interface Checked {
  /** the snapshot text's SHA-256 (collection-loader.ts `fingerprint`) */
  text: string;
  /** the record schema's (schema-fingerprint.ts) */
  schema: string;
}

export class CheckedSnapshots {
  #saving: Promise<void> = Promise.resolve();
  #queued = false;

  private constructor(private readonly path: string, private readonly entries: Map<string, Checked>) {}

  /** `listing`: the data directory's names, so a box without the file reads nothing. */
  static async open(dataDir: string, listing: readonly string[]): Promise<CheckedSnapshots> {
    const path = join(dataDir, CHECKED_SNAPSHOTS_FILE);
    await removeStaleTempFiles(path, listing);
    if (!listing.includes(CHECKED_SNAPSHOTS_FILE)) return new CheckedSnapshots(path, new Map());
    // as the collections' files (collection-loader.ts narrowModes): a wider mode an operator's copy gave it goes
    await chmod(path, 0o600).catch(() => {});
    return new CheckedSnapshots(path, await readEntries(path));
  }

  /** Whether this text of the snapshot was checked with this schema. */
  has(file: string, textFingerprint: string, schema: ZodType): boolean {
    const entry = this.entries.get(basename(file));
    return entry !== undefined && entry.text === textFingerprint && entry.schema === schemaFingerprint(schema);
  }

  /** The snapshot now holds this text, checked with this schema; written to disk in the background. */
  note(file: string, textFingerprint: string, schema: ZodType): void {
    const name = basename(file);
    const schemaPrint = schemaFingerprint(schema);
    const entry = this.entries.get(name);
    if (entry?.text === textFingerprint && entry.schema === schemaPrint) return;
    this.entries.set(name, { text: textFingerprint, schema: schemaPrint });
    this.#save();
  }

  /** Resolves once every note is on disk; a failed write only costs the next start a full check. */
  flush(): Promise<void> {
    return this.#saving;
  }

  #save(): void {
    // notes made while a write waits share it
    if (this.#queued) return;
    this.#queued = true;
    this.#saving = this.#saving.then(async () => {
      this.#queued = false;
      await writeFileAtomic(this.path, JSON.stringify(Object.fromEntries(this.entries)), { mode: 0o600, sync: false }).catch(() => {});
    });
  }
}

async function readEntries(path: string): Promise<Map<string, Checked>> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Record<string, Checked>;
    return new Map(Object.entries(parsed).filter(([, entry]) => typeof entry?.text === 'string' && typeof entry.schema === 'string'));
  } catch {
    // unreadable or not ours: every snapshot is checked, as before
    return new Map();
  }
}
