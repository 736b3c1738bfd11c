// Alerts about the box itself, each sent once when the condition starts and armed again when it
// ends: a service not active, the disk under 10 % free, a certificate under 14 days from expiry or
// not renewed by certbot's timer (it renews at 30 days left and runs twice a day, so a lineage at
// RENEWAL_MISSED_DAYS has missed four runs).
import type { ListedCertificate } from '../certs/letsencrypt.ts';
import type { ServiceStatus, SystemStats } from '../system/types.ts';
import type { AlertService } from './service.ts';

type Emitter = Pick<AlertService, 'emit'>;

export const DISK_LOW_FRACTION = 0.1;
/** Free again above this: a disk hovering at 10 % does not send an alert per check. */
const DISK_CLEAR_FRACTION = 0.11;
export const EXPIRING_DAYS = 14;
const RENEWAL_MISSED_DAYS = 28;

export class BoxWatch {
  readonly #inactive = new Set<string>();
  #diskLow = false;
  /** `<event> <name> <expiresAt>`: each lineage's certificate alerted once per event */
  readonly #certAlerts = new Set<string>();

  constructor(private readonly alerts: Emitter) {}

  observeServices(statuses: readonly ServiceStatus[]): void {
    for (const s of statuses) {
      if (s.status === 'active') {
        this.#inactive.delete(s.name);
        continue;
      }
      if (this.#inactive.has(s.name)) continue;
      this.#inactive.add(s.name);
      this.alerts.emit('service.inactive', { service: s.name, status: s.status });
    }
  }

  observeDisk(disk: SystemStats['disk']): void {
    if (disk.total <= 0) return;
    const freeFraction = disk.free / disk.total;
    if (this.#diskLow) {
      if (freeFraction >= DISK_CLEAR_FRACTION) this.#diskLow = false;
      return;
    }
    if (freeFraction >= DISK_LOW_FRACTION) return;
    this.#diskLow = true;
    this.alerts.emit('disk.low', { freeBytes: disk.free, totalBytes: disk.total, freePercent: Math.round(freeFraction * 1000) / 10 });
  }

  observeCerts(certs: readonly ListedCertificate[]): void {
    const current = new Set<string>();
    const once = (event: 'cert.expiring' | 'cert.renewal_failed', c: ListedCertificate, data: Record<string, unknown>) => {
      const key = `${event} ${c.name} ${c.expiresAt}`;
      current.add(key);
      if (this.#certAlerts.has(key)) return;
      this.#certAlerts.add(key);
      this.alerts.emit(event, { name: c.name, domains: c.domains, expiresAt: c.expiresAt, daysLeft: c.daysLeft, ...data });
    };
    for (const c of certs) {
      if (c.daysLeft <= RENEWAL_MISSED_DAYS) once('cert.renewal_failed', c, { reason: `not renewed at ${c.daysLeft} days left (certbot renews at 30)` });
      if (c.daysLeft < EXPIRING_DAYS) once('cert.expiring', c, {});
    }
    // a renewed or removed certificate's keys go: memory follows the lineages there are
    for (const key of this.#certAlerts) if (!current.has(key)) this.#certAlerts.delete(key);
  }

  /** The panel's own forced renewal failed (POST /api/certs/:domain/renew). */
  renewalFailed(name: string, reason: string): void {
    this.alerts.emit('cert.renewal_failed', { name, reason });
  }
}
