// `agent.revoked` for each agent certificate revoked, whichever way (the API, a restore, the CLI),
// told by the agents collection's change listener.
import type { AgentRecord } from '../state/schemas.ts';
import { pairKey } from '../state/store.ts';
import type { AlertService } from './service.ts';

type Emitter = Pick<AlertService, 'emit'>;
const keyOf = (a: AgentRecord) => pairKey(a.label, a.serial);

export class AgentWatch {
  readonly #revoked: Set<string>;

  constructor(private readonly alerts: Emitter, agents: readonly AgentRecord[]) {
    this.#revoked = new Set(agents.filter((a) => a.revokedAt !== null).map(keyOf));
  }

  observe(agents: readonly AgentRecord[]): void {
    const revoked = new Set<string>();
    for (const a of agents) {
      if (a.revokedAt === null) continue;
      const key = keyOf(a);
      revoked.add(key);
      if (!this.#revoked.has(key)) this.alerts.emit('agent.revoked', { label: a.label, serial: a.serial, revokedAt: a.revokedAt });
    }
    this.#revoked.clear();
    for (const key of revoked) this.#revoked.add(key);
  }
}
