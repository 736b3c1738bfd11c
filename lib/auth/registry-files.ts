import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { StoreLoadError } from '../state/collection.ts';
import type { RecordCollection } from '../state/record-collection.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../state/store.ts';

const REGISTRY_FILES = ['agents', 'revocations'] as const;
type RegistryName = (typeof REGISTRY_FILES)[number];

/** Leaves time for an editor's write-then-rename to settle before the file is read. */
const SETTLE_MS = 50;

/**
 * Takes a hand edit of agents.json or revocations.json into the in-memory registry without a
 * restart. The store knows the snapshot texts it wrote itself; any other text is an edit from
 * outside and becomes the whole truth (the journal of older changes must not replay over it, so
 * it is folded into a new snapshot at once). A file that does not parse or validate is reported,
 * naming the file, and the registry keeps what it had.
 */
export function reloadRegistryFile(store: Pick<Store, RegistryName>, name: RegistryName, log: Logger): Promise<ReloadOutcome> {
  return name === 'agents' ? reload(store.agents, name, log) : reload(store.revocations, name, log);
}

async function reload<R>(collection: RecordCollection<R>, name: RegistryName, log: Logger): Promise<ReloadOutcome> {
  // a snapshot being written by the panel itself lands first
  await collection.flush();
  let snapshot: Awaited<ReturnType<RecordCollection<R>['readSnapshot']>>;
  try {
    snapshot = await collection.readSnapshot();
  } catch (error) {
    const problem = error instanceof StoreLoadError ? error.message : `Cannot load ${collection.file}: ${errorMessage(error)}.`;
    log.error(`${problem} Keeping the ${name} in memory.`);
    return 'rejected';
  }
  if (snapshot.own) return 'unchanged';
  const { records } = snapshot;
  await collection.update((draft) => void draft.splice(0, draft.length, ...records));
  await collection.compact();
  log.info(`Loaded ${collection.file} after an edit: ${records.length} ${name}`);
  return 'applied';
}

type ReloadOutcome = 'applied' | 'unchanged' | 'rejected';

/**
 * Watches the data directory for edits of the registry files; returns the stop function. A store
 * kept in memory (a test's kit) has no files to edit, and its directory may not exist: nothing is watched.
 */
export function watchRegistryFiles(store: Pick<Store, RegistryName | 'persistence'>, log: Logger): () => void {
  if (store.persistence === 'memory') return () => undefined;
  const byFile = new Map(REGISTRY_FILES.map((name) => [basename(store[name].file), name]));
  const timers = new Map<RegistryName, NodeJS.Timeout>();
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(store.agents.file), (_event, file) => {
      const name = file ? byFile.get(String(file)) : undefined;
      if (!name) return;
      clearTimeout(timers.get(name));
      timers.set(name, setTimeout(() => {
        timers.delete(name);
        void reloadRegistryFile(store, name, log).catch((error) => log.error(`Reloading ${store[name].file} failed: ${errorMessage(error)}`));
      }, SETTLE_MS));
    });
    watcher.on('error', (error) => log.warn(`Watching ${dirname(store.agents.file)} stopped: ${errorMessage(error)}`));
  } catch (error) {
    log.warn(`Cannot watch ${dirname(store.agents.file)} for registry edits: ${errorMessage(error)}`);
  }
  return () => {
    watcher?.close();
    for (const timer of timers.values()) clearTimeout(timer);
  };
}
