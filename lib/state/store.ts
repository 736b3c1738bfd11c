import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { z, ZodType } from 'zod';
import { RecordCollection, type Persistence, type WriteObserver } from './record-collection.ts';
import {
  AgentRecord,
  InvitationRecord,
  PluginRecord,
  PushGrantRecord,
  PushPolicyRecord,
  PushSessionRecord,
  RevocationRecord,
  SiteRecord,
  TicketAssignmentRecord,
  TicketInstanceRecord,
  TicketRecord,
  TicketScopeRecord,
  TicketSessionRecord,
  TunnelRecord,
  WebhookRecord,
} from './schemas.ts';

/** A compound key; NUL cannot appear in a certificate label or a capability name. */
export const pairKey = (a: string, b: string) => `${a}\u0000${b}`;

const byId = (record: { id: string }) => record.id;

/**
 * Collection name -> record schema, unique key and file mode. Each is `<dataDir>/<name>.json`, a
 * JSON array of its records, plus the journal of changes since (lib/state/record-collection.ts).
 */
const COLLECTIONS = {
  tunnels: { record: TunnelRecord, key: byId, mode: 0o644 },
  sites: { record: SiteRecord, key: byId, mode: 0o644 },
  agents: { record: AgentRecord, key: (a: AgentRecord) => pairKey(a.label, a.serial), mode: 0o600 },
  revocations: { record: RevocationRecord, key: (r: RevocationRecord) => r.serial, mode: 0o600 },
  invitations: { record: InvitationRecord, key: byId, mode: 0o600 },
  plugins: { record: PluginRecord, key: (p: PluginRecord) => p.name, mode: 0o600 },
  pushPolicies: { record: PushPolicyRecord, key: byId, mode: 0o600 },
  pushGrants: { record: PushGrantRecord, key: (g: PushGrantRecord) => g.label, mode: 0o600 },
  pushSessions: { record: PushSessionRecord, key: byId, mode: 0o600 },
  ticketScopes: { record: TicketScopeRecord, key: (s: TicketScopeRecord) => s.name, mode: 0o600 },
  ticketInstances: { record: TicketInstanceRecord, key: (i: TicketInstanceRecord) => i.instanceId, mode: 0o600 },
  ticketAssignments: { record: TicketAssignmentRecord, key: (a: TicketAssignmentRecord) => pairKey(a.agentLabel, a.instanceScope), mode: 0o600 },
  tickets: { record: TicketRecord, key: byId, mode: 0o600 },
  ticketSessions: { record: TicketSessionRecord, key: (s: TicketSessionRecord) => s.sessionId, mode: 0o600 },
  webhooks: { record: WebhookRecord, key: byId, mode: 0o600 },
} as const;

type Definitions = typeof COLLECTIONS;
export type CollectionName = keyof Definitions;
export type Store = {
  [K in CollectionName]: RecordCollection<z.infer<Definitions[K]['record']>>;
} & {
  readonly dataDir: string;
  /** `memory`: nothing under dataDir is read or written. */
  readonly persistence: Persistence;
  /** One observer of every collection's journal writes (metrics), told the collection's name. */
  observeWrites(observer: (collection: CollectionName, write: Parameters<WriteObserver>[0]) => void): void;
  /** Waits for every accepted change to be on disk. */
  flush(): Promise<void>;
  /** Flushes, then folds every journal into its snapshot (on shutdown: the `.json` files alone are then the state). */
  close(): Promise<void>;
};

/** `persistence: 'memory'` keeps every collection in memory only: nothing under dataDir is read or written. */
export async function openStore(dataDir: string, { persistence = 'disk' }: { persistence?: Persistence } = {}): Promise<Store> {
  if (persistence === 'disk') await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const listing = persistence === 'disk' ? await readdir(dataDir) : [];
  const entries = await Promise.all(
    (Object.keys(COLLECTIONS) as CollectionName[]).map(async (name) => {
      const { record, key, mode } = COLLECTIONS[name];
      const collection = await RecordCollection.open({
        file: join(dataDir, `${name}.json`),
        record: record as ZodType,
        key: key as (record: unknown) => string,
        mode,
        listing,
        persistence,
      });
      return [name, collection] as const;
    }),
  );
  const collections = Object.fromEntries(entries) as unknown as Omit<Store, 'dataDir' | 'persistence' | 'flush' | 'close' | 'observeWrites'>;
  return {
    ...collections,
    dataDir,
    persistence,
    observeWrites(observer) {
      for (const [name, collection] of entries) collection.observeWrites((write) => observer(name, write));
    },
    async flush() {
      await Promise.all(entries.map(([, c]) => c.flush()));
    },
    async close() {
      await Promise.all(entries.map(([, c]) => c.compact()));
    },
  };
}
