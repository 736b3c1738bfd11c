import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z, type ZodType } from 'zod';
import { JsonCollection, type Persistence } from './collection.ts';
import {
  AgentRecord,
  InvitationRecord,
  RevocationRecord,
  SiteRecord,
  TicketAssignmentRecord,
  TicketInstanceRecord,
  TicketRecord,
  TicketScopeRecord,
  TicketSessionRecord,
  TunnelRecord,
} from './schemas.ts';

/** Collection name -> record schema and file mode. Each becomes `<dataDir>/<name>.json`, a JSON array. */
const COLLECTIONS = {
  tunnels: { record: TunnelRecord, mode: 0o644 },
  sites: { record: SiteRecord, mode: 0o644 },
  agents: { record: AgentRecord, mode: 0o600 },
  revocations: { record: RevocationRecord, mode: 0o600 },
  invitations: { record: InvitationRecord, mode: 0o600 },
  ticketScopes: { record: TicketScopeRecord, mode: 0o600 },
  ticketInstances: { record: TicketInstanceRecord, mode: 0o600 },
  ticketAssignments: { record: TicketAssignmentRecord, mode: 0o600 },
  tickets: { record: TicketRecord, mode: 0o600 },
  ticketSessions: { record: TicketSessionRecord, mode: 0o600 },
} as const;

type Definitions = typeof COLLECTIONS;
export type CollectionName = keyof Definitions;
export type Store = {
  [K in CollectionName]: JsonCollection<z.infer<Definitions[K]['record']>[]>;
} & {
  readonly dataDir: string;
  flush(): Promise<void>;
};

/** `persistence: 'memory'` keeps every collection in memory only: nothing under dataDir is read or written. */
export async function openStore(dataDir: string, { persistence = 'disk' }: { persistence?: Persistence } = {}): Promise<Store> {
  if (persistence === 'disk') await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const entries = await Promise.all(
    (Object.keys(COLLECTIONS) as CollectionName[]).map(async (name) => {
      const { record, mode } = COLLECTIONS[name];
      const collection = await JsonCollection.open({
        file: join(dataDir, `${name}.json`),
        schema: z.array(record as ZodType) as ZodType<unknown[]>,
        initial: () => [],
        mode,
        persistence,
      });
      return [name, collection] as const;
    }),
  );
  const collections = Object.fromEntries(entries) as unknown as Omit<Store, 'dataDir' | 'flush'>;
  return {
    ...collections,
    dataDir,
    async flush() {
      await Promise.all(entries.map(([, c]) => c.flush()));
    },
  };
}
