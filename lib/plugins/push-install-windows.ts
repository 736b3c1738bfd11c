import type { Clock } from '../clock.ts';
import { jsonBytes } from '../json-bytes.ts';
import type { RecordCollection } from '../state/record-collection.ts';
import type { PushGrantRecord } from '../state/schemas.ts';

/** Open until `expiresAt`, exclusive: the same rule a push is checked by. */
export const isOpen = (grant: PushGrantRecord, now: number): boolean => Date.parse(grant.expiresAt) > now;

/**
 * `{"grants":[...]}`: the push-install windows open now, by agent label. Expired records stay in
 * the collection until replaced or ended, so the bytes are good until the collection changes or the
 * soonest listed window ends, whichever comes first.
 */
export class OpenWindowList {
  #cache: { version: number; validUntil: number; bytes: Uint8Array<ArrayBuffer> } | null = null;

  constructor(
    private readonly grants: RecordCollection<PushGrantRecord>,
    private readonly clock: Clock,
  ) {}

  json(): Uint8Array<ArrayBuffer> {
    const now = this.clock.now();
    const cache = this.#cache;
    if (cache && cache.version === this.grants.version && now < cache.validUntil) return cache.bytes;
    const open = this.grants.value.filter((g) => isOpen(g, now)).sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
    const bytes = jsonBytes({ grants: open });
    this.#cache = { version: this.grants.version, validUntil: open.reduce((soonest, g) => Math.min(soonest, Date.parse(g.expiresAt)), Infinity), bytes };
    return bytes;
  }
}
