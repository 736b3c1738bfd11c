import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Store } from '../../state/store.ts';
import { LEDGER_KEEP_MS } from './defaults.ts';
import type { CertIssuanceRecord } from './schema.ts';

/** The issuance ledger in the store (journaled, backed up with the data dir), pruned as it grows. */
export class IssuanceLedger {
  constructor(private readonly deps: { store: Pick<Store, 'certIssuances'>; clock: Clock }) {}

  get records(): readonly CertIssuanceRecord[] {
    return this.deps.store.certIssuances.value;
  }

  /** Adds one order, dropping in the same write those no window sees any more. */
  add(entry: Omit<CertIssuanceRecord, 'id' | 'at'>): Promise<CertIssuanceRecord> {
    const record: CertIssuanceRecord = { id: randomUUID(), at: new Date(this.deps.clock.now()).toISOString(), ...entry };
    return this.deps.store.certIssuances.edit((draft) => {
      this.#dropStale(draft);
      draft.put(record);
      return record;
    });
  }

  /** Drops the orders older than the longest window (7 days); resolves at once when there are none. */
  async prune(): Promise<void> {
    if (!this.records.some((r) => this.#stale(r))) return;
    await this.deps.store.certIssuances.edit((draft) => this.#dropStale(draft));
  }

  #stale(record: CertIssuanceRecord): boolean {
    return Date.parse(record.at) + LEDGER_KEEP_MS <= this.deps.clock.now();
  }

  #dropStale(draft: { values(): IterableIterator<CertIssuanceRecord>; delete(key: string): boolean }): void {
    for (const record of [...draft.values()]) if (this.#stale(record)) draft.delete(record.id);
  }
}
