// `tunnel.down` when an enabled tunnel's client has been gone for a webhook's tunnelDownMinutes (each
// webhook its own wait), `tunnel.up` to the webhooks told so when the client is back. A disabled or
// deleted tunnel is not down: the webhooks told are forgotten without an alert.
import type { TunnelStatusItem } from '../tunnels/status.ts';
import type { AlertService } from './service.ts';

type Emitter = Pick<AlertService, 'emit' | 'subscribers'>;

/**
 * What the watch reads of a tunnel's status. `tunnel`: what the alert names, when not the HTTP
 * tunnel's `{id, subdomain, port}` (a TCP or UDP tunnel: `{id, protocol, publicPort, port}`).
 */
type WatchedTunnel = Pick<TunnelStatusItem, 'id' | 'enabled' | 'connected' | 'lastSeen'> & ({ subdomain: string; port: number } | { tunnel: Record<string, unknown> });

export class TunnelWatch {
  /** tunnel id -> when its client was first seen gone */
  readonly #downSince = new Map<string, number>();
  /** tunnel id -> the webhooks told it is down */
  readonly #told = new Map<string, Set<string>>();

  constructor(private readonly alerts: Emitter) {}

  observe(tunnels: readonly WatchedTunnel[], now: number): void {
    const present = new Set<string>();
    for (const t of tunnels) {
      present.add(t.id);
      const tunnel = 'tunnel' in t ? t.tunnel : { id: t.id, subdomain: t.subdomain, port: t.port };
      if (!t.enabled || t.connected) {
        const told = this.#told.get(t.id);
        const since = this.#downSince.get(t.id);
        if (t.connected && told && since !== undefined) {
          this.alerts.emit('tunnel.up', { tunnel, downSince: new Date(since).toISOString(), downMinutes: Math.round((now - since) / 60_000) }, (w) => told.has(w.id));
        }
        this.#forget(t.id);
        continue;
      }
      const since = this.#downSince.get(t.id) ?? now;
      this.#downSince.set(t.id, since);
      const told = this.#told.get(t.id) ?? new Set<string>();
      const due = (w: { id: string; tunnelDownMinutes: number }) => !told.has(w.id) && now - since >= w.tunnelDownMinutes * 60_000;
      const newlyTold = this.alerts.subscribers('tunnel.down').filter(due);
      if (newlyTold.length === 0) continue;
      const ids = new Set(newlyTold.map((w) => w.id));
      this.alerts.emit('tunnel.down', { tunnel, downSince: new Date(since).toISOString(), lastSeen: t.lastSeen }, (w) => ids.has(w.id));
      for (const id of ids) told.add(id);
      this.#told.set(t.id, told);
    }
    for (const id of this.#downSince.keys()) if (!present.has(id)) this.#forget(id);
  }

  #forget(id: string): void {
    this.#downSince.delete(id);
    this.#told.delete(id);
  }
}
