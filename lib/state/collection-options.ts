import type { ZodType } from 'zod';
import type { Logger } from '../log.ts';
import type { CheckedSnapshots } from './checked-snapshots.ts';

export type Persistence = 'disk' | 'memory';

export interface RecordCollectionOptions<R> {
  /** The snapshot, `<dir>/<name>.json`: a JSON array of the records (a readable export); journals sit next to it. */
  file: string;
  record: ZodType<R>;
  /** A record's unique key. */
  key: (record: R) => string;
  /** Of the snapshot and the journals: 0o600 unless given (everything in the data directory is the panel's alone). */
  mode?: number;
  /** The snapshot is rewritten once the journal holds this many bytes, and at least as many as the snapshot. */
  compactAfterBytes?: number;
  /** `memory` reads and writes nothing on disk (the testing kit); `disk` by default. */
  persistence?: Persistence;
  /** The snapshot directory's entries, when the caller has listed it already. */
  listing?: readonly string[];
  /** Told of a snapshot that could not be written (and of the one that then could); stderr unless given. */
  log?: Pick<Logger, 'error' | 'info'>;
  /** The first retry of a failed snapshot comes this long after it; each failure doubles the wait, up to a minute. */
  snapshotRetryMs?: number;
  /**
   * The snapshot texts this release checked (the store's): a snapshot that is one of them is read
   * without its schema check, and one checked in full is noted, or rewritten at the next snapshot
   * when its text is not what this release writes. Without it every start checks every record.
   */
  checked?: CheckedSnapshots;
}

/** Everything in the data directory is the panel's alone. */
export const DEFAULT_MODE = 0o600;
