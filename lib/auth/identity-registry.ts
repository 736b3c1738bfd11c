import type { Store } from '../state/store.ts';
import { normalizeSerial } from './identity.ts';
import type { AgentRecord } from '../state/schemas.ts';

export type ActiveAgent = AgentRecord & { capabilitySet: ReadonlySet<string>; normalizedSerial: string };

/**
 * What the identity check needs on every request, derived from the store in memory and rebuilt
 * only when the agents or revocations collections change.
 */
export class IdentityRegistry {
  readonly #revoked: () => ReadonlySet<string>;
  readonly #active: () => ReadonlyMap<string, ActiveAgent>;

  constructor(store: Pick<Store, 'agents' | 'revocations'>) {
    this.#revoked = store.revocations.memo((list) => new Set(list.map((r) => normalizeSerial(r.serial))));
    let versions: readonly [number, number] = [-1, -1];
    let active: ReadonlyMap<string, ActiveAgent> = new Map();
    this.#active = () => {
      if (versions[0] !== store.agents.version || versions[1] !== store.revocations.version) {
        versions = [store.agents.version, store.revocations.version];
        const revoked = this.#revoked();
        active = new Map(
          store.agents.value
            .filter((a) => a.revokedAt === null && !revoked.has(normalizeSerial(a.serial)))
            .map((a) => [a.label, { ...a, capabilitySet: new Set(a.capabilities), normalizedSerial: normalizeSerial(a.serial) }]),
        );
      }
      return active;
    };
  }

  /** Takes a serial as `normalizeSerial` gives it (the identity check normalizes the header once). */
  isRevoked(normalizedSerial: string): boolean {
    return this.#revoked().has(normalizedSerial);
  }

  /**
   * The agent registered under `label` if it is active: neither marked revoked nor holding a
   * certificate serial on the revocation list. Undefined for unknown and revoked agents alike.
   */
  activeAgent(label: string): ActiveAgent | undefined {
    return this.#active().get(label);
  }

  /**
   * The active agent of `label` only when the presented certificate is the one registered for it:
   * a re-issued label must not keep its previous certificate working.
   */
  agentPresenting(label: string, normalizedSerial: string | null): { agent: ActiveAgent | undefined; superseded: boolean } {
    const agent = this.#active().get(label);
    if (!agent) return { agent: undefined, superseded: false };
    return agent.normalizedSerial === normalizedSerial ? { agent, superseded: false } : { agent: undefined, superseded: true };
  }
}
