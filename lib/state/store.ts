import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { z, ZodType } from 'zod';
import type { Logger } from '../log.ts';
import { CheckedSnapshots } from './checked-snapshots.ts';
import { openDocuments, type Documents } from './documents.ts';
import { RecordCollection, type Persistence, type WriteObserver } from './record-collection.ts';
import { schemaFingerprint } from './schema-fingerprint.ts';
import {
  AgentRecord,
  CertIssuanceRecord,
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
  StreamRecord,
  WebhookRecord,
} from './schemas.ts';

/** A compound key; NUL cannot appear in a certificate label or a capability name. */
export const pairKey = (a: string, b: string) => `${a}\u0000${b}`;

const byId = (record: { id: string }) => record.id;

/**
 * Collection name -> record schema and unique key. Each is `<dataDir>/<name>.json`, a JSON array of
 * its records, plus the journal of changes since (lib/state/record-collection.ts); every file 0600.
 */
const COLLECTIONS = {
  tunnels: { record: TunnelRecord, key: byId },
  streams: { record: StreamRecord, key: byId },
  sites: { record: SiteRecord, key: byId },
  agents: { record: AgentRecord, key: (a: AgentRecord) => pairKey(a.label, a.serial) },
  revocations: { record: RevocationRecord, key: (r: RevocationRecord) => r.serial },
  invitations: { record: InvitationRecord, key: byId },
  plugins: { record: PluginRecord, key: (p: PluginRecord) => p.name },
  pushPolicies: { record: PushPolicyRecord, key: byId },
  pushGrants: { record: PushGrantRecord, key: (g: PushGrantRecord) => g.label },
  pushSessions: { record: PushSessionRecord, key: byId },
  ticketScopes: { record: TicketScopeRecord, key: (s: TicketScopeRecord) => s.name },
  ticketInstances: { record: TicketInstanceRecord, key: (i: TicketInstanceRecord) => i.instanceId },
  ticketAssignments: { record: TicketAssignmentRecord, key: (a: TicketAssignmentRecord) => pairKey(a.agentLabel, a.instanceScope) },
  tickets: { record: TicketRecord, key: byId },
  ticketSessions: { record: TicketSessionRecord, key: (s: TicketSessionRecord) => s.sessionId },
  webhooks: { record: WebhookRecord, key: byId },
  /** the ACME orders the panel placed in the last 7 days (lib/certs/limits) */
  certIssuances: { record: CertIssuanceRecord, key: byId },
} as const;

type Definitions = typeof COLLECTIONS;
export type CollectionName = keyof Definitions;
export type Store = {
  [K in CollectionName]: RecordCollection<z.infer<Definitions[K]['record']>>;
} & Documents & {
  readonly dataDir: string;
  /** `memory`: nothing under dataDir is read or written. */
  readonly persistence: Persistence;
  /** One observer of every collection's journal writes (metrics), told the collection's name. */
  observeWrites(observer: (collection: CollectionName, write: Parameters<WriteObserver>[0]) => void): void;
  /** Waits for every accepted change to be on disk. */
  flush(): Promise<void>;
  /**
   * Flushes, then folds every journal into its snapshot (on shutdown: the `.json` files alone are
   * then the state). Rejects, once every collection has tried, when a snapshot could not be written
   * (its journals still hold every change).
   */
  close(): Promise<void>;
};

export interface StoreOptions {
  /** `memory` keeps every collection in memory only: nothing under dataDir is read or written. */
  persistence?: Persistence;
  /** Where a snapshot that cannot be written is reported (stderr unless given). */
  log?: Pick<Logger, 'error' | 'info'>;
  /** The first retry of a failed snapshot (tests shorten it). */
  snapshotRetryMs?: number;
  /** When a journal is folded into its snapshot (tests lower it to have snapshots written often). */
  compactAfterBytes?: number;
}

/**
 * Each record schema's fingerprint, kept for the process (schema-fingerprint.ts): a start compares
 * them with checked-snapshots.json. Worked out while the startup snapshot is built (lib/cli.ts),
 * they are in the blob, and a start from it does not walk and hash 17 schemas again.
 */
export function fingerprintRecordSchemas(): void {
  for (const { record } of Object.values(COLLECTIONS)) schemaFingerprint(record);
}

export async function openStore(dataDir: string, { persistence = 'disk', log, snapshotRetryMs, compactAfterBytes }: StoreOptions = {}): Promise<Store> {
  if (persistence === 'disk') await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const listing = persistence === 'disk' ? await readdir(dataDir) : [];
  const checked = persistence === 'disk' ? await CheckedSnapshots.open(dataDir, listing) : undefined;
  const entries = await Promise.all(
    (Object.keys(COLLECTIONS) as CollectionName[]).map(async (name) => {
      const { record, key } = COLLECTIONS[name];
      const collection = await RecordCollection.open({
        file: join(dataDir, `${name}.json`),
        record: record as ZodType,
        key: key as (record: unknown) => string,
        listing,
        persistence,
        log,
        snapshotRetryMs,
        compactAfterBytes,
        checked,
      });
      return [name, collection] as const;
    }),
  );
  const collections = Object.fromEntries(entries) as unknown as Omit<Store, keyof Documents | 'dataDir' | 'persistence' | 'flush' | 'close' | 'observeWrites'>;
  const documents = await openDocuments(dataDir, persistence, listing);
  return {
    ...collections,
    ...documents,
    dataDir,
    persistence,
    observeWrites(observer) {
      for (const [name, collection] of entries) collection.observeWrites((write) => observer(name, write));
    },
    async flush() {
      await Promise.all([...entries.map(([, c]) => c.flush()), documents.adminCert.flush(), documents.enrollmentTokens.flush()]);
      await checked?.flush();
    },
    async close() {
      const failed = (await Promise.allSettled(entries.map(([, c]) => c.compact()))).flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      await checked?.flush();
      if (failed.length === 1) throw failed[0];
      if (failed.length > 1) throw new AggregateError(failed, failed.map((e) => (e instanceof Error ? e.message : String(e))).join('; '));
    },
  };
}
