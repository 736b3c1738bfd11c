import { jsonBytes } from '../json-bytes.ts';
import type { TransportConfig } from '../state/schemas.ts';
import type { TicketIndexes } from './indexes.ts';
import type { InboxEntry } from './views.ts';

interface Cached {
  bytes: Uint8Array<ArrayBuffer>;
  /** The first expiry among its tickets: the body is stale from then on. */
  until: number;
}

/**
 * Each agent's inbox (`{"tickets":[...]}`) serialized once, as bytes, until a ticket of that agent
 * changes, one of its tickets expires, or an instance or scope changes (the transports).
 */
export class InboxCache {
  readonly #bodies = new Map<string, Cached>();
  #transports: ReadonlyMap<string, TransportConfig> | null = null;

  constructor(private readonly indexes: TicketIndexes) {
    indexes.waiting.onGroupChange((target) => (target === null ? this.#bodies.clear() : this.#bodies.delete(target)));
  }

  /** The target's unused, unexpired tickets at `now`. */
  entries(target: string, now: number): InboxEntry[] {
    const transports = this.indexes.transportByInstance();
    const entries: InboxEntry[] = [];
    for (const ticket of this.indexes.waiting.group(target)?.values() ?? []) {
      // No transport: the instance is gone (only a crash mid-removal leaves such a ticket): never handed out.
      const transport = transports.get(ticket.instanceId);
      const { id, scope, instanceId, source, expiresAt } = ticket;
      if (transport && Date.parse(expiresAt) > now) entries.push({ id, scope, instanceId, source, expiresAt, transport });
    }
    return entries;
  }

  body(target: string, now: number): Uint8Array<ArrayBuffer> {
    const transports = this.indexes.transportByInstance();
    if (transports !== this.#transports) {
      this.#bodies.clear();
      this.#transports = transports;
    }
    const cached = this.#bodies.get(target);
    if (cached && now < cached.until) return cached.bytes;
    const tickets = this.entries(target, now);
    const fresh = { bytes: jsonBytes({ tickets }), until: Math.min(Infinity, ...tickets.map((t) => Date.parse(t.expiresAt))) };
    this.#bodies.set(target, fresh);
    return fresh.bytes;
  }
}
