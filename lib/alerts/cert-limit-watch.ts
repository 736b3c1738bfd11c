import type { AlertService } from './service.ts';
import type { LimitCount, LimitName } from '../certs/limits/schema.ts';

/** The share of a weekly limit at which `cert.limit_near` is sent. */
const NEAR_FRACTION = 0.8;
/** The limits counted over a week: the hourly ones refill before an operator could act on an alert. */
const WEEKLY: ReadonlySet<LimitName> = new Set(['newPerRegisteredDomain', 'duplicatePerNameSet']);

/**
 * `cert.limit_near`, sent once when a weekly count reaches 80 % of its limit and armed again when
 * it falls below (as the box's other alerts: once when the condition starts).
 */
export class NearLimitAlert {
  /** `<limit> <key>` of the counts alerted and still at or above the share */
  readonly #near = new Set<string>();

  constructor(private readonly alerts: Pick<AlertService, 'emit'>) {}

  observe(counts: readonly LimitCount[]): void {
    const current = new Set<string>();
    for (const c of counts) {
      if (!WEEKLY.has(c.limit) || c.max === null || c.count < Math.ceil(c.max * NEAR_FRACTION)) continue;
      const key = `${c.limit} ${c.key}`;
      current.add(key);
      if (this.#near.has(key)) continue;
      this.#near.add(key);
      this.alerts.emit('cert.limit_near', { limit: c.limit, key: c.key, count: c.count, max: c.max, percent: Math.round((c.count / c.max) * 100), nextFreeAt: c.nextFreeAt });
    }
    for (const key of this.#near) if (!current.has(key)) this.#near.delete(key);
  }
}
