import { sep } from 'node:path';

// A test kit's throwaway directory is removed when the kit closes and never read after a crash,
// so an fsync there buys nothing; even on tmpfs it costs thread-pool round trips (about 40-60 µs
// of CPU per atomic write). Empty unless a kit names its directory: every other write is synced
// as before.
const unsynced = new Set<string>();

/** Writes under `dir` skip their fsyncs until the returned function is called. */
export function skipSyncUnder(dir: string): () => void {
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  unsynced.add(prefix);
  return () => {
    unsynced.delete(prefix);
  };
}

/** Whether a write at `path` (a file, or a directory to sync) must reach the disk. */
export function needsSync(path: string): boolean {
  if (unsynced.size === 0) return true;
  const dir = path.endsWith(sep) ? path : path + sep;
  for (const prefix of unsynced) if (dir.startsWith(prefix)) return false;
  return true;
}
