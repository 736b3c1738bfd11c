import type { Store } from '../state/store.ts';
import { normalizeSerial } from './identity.ts';
import type { AgentRecord } from '../state/schemas.ts';

/**
 * What the identity check needs on every request, derived from the store in memory and rebuilt
 * only when the agents or revocations collections change.
 */
export class IdentityRegistry {
  readonly #revoked: () => ReadonlySet<string>;
  readonly #agents: () => ReadonlyMap<string, AgentRecord & { capabilitySet: ReadonlySet<string> }>;

  constructor(store: Pick<Store, 'agents' | 'revocations'>) {
    this.#revoked = store.revocations.memo((list) => new Set(list.map((r) => normalizeSerial(r.serial))));
    this.#agents = store.agents.memo(
      (list) => new Map(list.map((a) => [a.label, { ...a, capabilitySet: new Set(a.capabilities) }])),
    );
  }

  isRevoked(serial: string): boolean {
    return this.#revoked().has(normalizeSerial(serial));
  }

  agent(label: string) {
    return this.#agents().get(label);
  }
}
