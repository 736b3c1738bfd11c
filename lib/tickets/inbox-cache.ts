import { jsonBytes } from '../json-bytes.ts';
import type { TransportConfig } from '../state/schemas.ts';
import type { TicketHolder } from './caller.ts';
import type { TicketIndexes } from './indexes.ts';
import type { InboxEntry } from './views.ts';

const NO_TICKETS = jsonBytes({ tickets: [] });

interface Cached {
  bytes: Uint8Array<ArrayBuffer>;
  /** The first expiry among its tickets: the body is stale from then on. */
  until: number;
  /** The holder's capabilities it was filtered by: a registry change gives the holder a new set. */
  capabilities: ReadonlySet<string>;
}

/**
 * Each agent's inbox (`{"tickets":[...]}`) serialized once, as bytes, until a ticket of that agent
 * changes, one of its tickets expires, an instance or scope changes (the transports), or the agent's
 * registry record does (its capabilities).
 */
export class InboxCache {
  readonly #bodies = new Map<string, Cached>();
  #transports: ReadonlyMap<string, TransportConfig> | null = null;

  constructor(private readonly indexes: TicketIndexes) {
    indexes.waiting.onGroupChange((target) => (target === null ? this.#bodies.clear() : this.#bodies.delete(target)));
  }

  /** `{"tickets": [...]}`: the holder's unused, unexpired tickets at `now` whose scope it still holds. */
  body(holder: TicketHolder, now: number): Uint8Array<ArrayBuffer> {
    // a holder with no capability (revoked, or a re-issued label's earlier certificate) holds no
    // ticket's scope: answered without taking the label's place in the cache from its current certificate
    if (holder.capabilities.size === 0) return NO_TICKETS;
    const transports = this.indexes.transportByInstance();
    if (transports !== this.#transports) {
      this.#bodies.clear();
      this.#transports = transports;
    }
    const cached = this.#bodies.get(holder.label);
    if (cached && now < cached.until && cached.capabilities === holder.capabilities) return cached.bytes;
    const tickets = this.#entries(holder, transports, now);
    const fresh = { bytes: jsonBytes({ tickets }), until: Math.min(Infinity, ...tickets.map((t) => Date.parse(t.expiresAt))), capabilities: holder.capabilities };
    this.#bodies.set(holder.label, fresh);
    return fresh.bytes;
  }

  #entries(holder: TicketHolder, transports: ReadonlyMap<string, TransportConfig>, now: number): InboxEntry[] {
    const entries: InboxEntry[] = [];
    for (const ticket of this.indexes.waiting.group(holder.label)?.values() ?? []) {
      // No transport: the instance is gone (only a crash mid-removal leaves such a ticket): never handed out.
      const transport = transports.get(ticket.instanceId);
      const { id, scope, instanceId, source, expiresAt } = ticket;
      if (transport && Date.parse(expiresAt) > now && holder.capabilities.has(scope)) entries.push({ id, scope, instanceId, source, expiresAt, transport });
    }
    return entries;
  }
}
