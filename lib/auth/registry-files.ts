import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { z, type ZodType } from 'zod';
import type { JsonCollection } from '../state/collection.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import { AgentRecord, RevocationRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import { describeZodIssues } from '../state/zod-issues.ts';

const FILES = {
  agents: z.array(AgentRecord),
  revocations: z.array(RevocationRecord),
} as const;
type RegistryName = keyof typeof FILES;

/** Leaves time for an editor's write-then-rename to settle before the file is read. */
const SETTLE_MS = 50;

/**
 * Takes a hand edit of agents.json or revocations.json into the in-memory registry without a
 * restart. A file that does not parse or validate is reported (naming the file) and the registry
 * keeps what it had. The panel's own writes produce the same text and are ignored.
 */
export function reloadRegistryFile(store: Pick<Store, RegistryName>, name: RegistryName, log: Logger): Promise<ReloadOutcome> {
  return name === 'agents' ? reload(store.agents, FILES.agents, name, log) : reload(store.revocations, FILES.revocations, name, log);
}

type ReloadOutcome = 'applied' | 'unchanged' | 'rejected';

async function reload<T>(collection: JsonCollection<T[]>, schema: ZodType<T[]>, name: RegistryName, log: Logger): Promise<ReloadOutcome> {
  const reject = (problem: string): ReloadOutcome => {
    log.error(`Cannot load ${collection.file}: ${problem}. Keeping the ${name} in memory.`);
    return 'rejected';
  };
  // The panel's own writes land as the same text; waiting for them first means a file that differs
  // from memory while no update is in flight can only be an edit from outside.
  // The version is taken before the flush: every write of an update up to it is then on disk, and
  // an unchanged version after the read means no update came in between.
  let text = '';
  let version = -1;
  for (let attempt = 0; attempt < 5 && version !== collection.version; attempt++) {
    version = collection.version;
    await collection.flush();
    try {
      text = await readFile(collection.file, 'utf8');
    } catch (error) {
      return reject(errorMessage(error));
    }
  }
  if (version !== collection.version || text === JSON.stringify(collection.value)) return 'unchanged';
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return reject(`not valid JSON (${errorMessage(error)})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return reject(describeZodIssues(parsed.error.issues));
  const records = parsed.data;
  await collection.update((draft) => void draft.splice(0, draft.length, ...records));
  log.info(`Loaded ${collection.file} after an edit: ${records.length} ${name}`);
  return 'applied';
}

/** Watches the data directory for edits of the registry files; returns the stop function. */
export function watchRegistryFiles(store: Pick<Store, RegistryName>, log: Logger): () => void {
  const byFile = new Map((Object.keys(FILES) as RegistryName[]).map((name) => [basename(store[name].file), name]));
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
