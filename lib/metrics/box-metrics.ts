import type * as PromClient from 'prom-client';
import type { Clock } from '../clock.ts';
import type { LetsEncrypt } from '../certs/letsencrypt.ts';
import type { Logger } from '../log.ts';
import type { ServiceControl } from '../service-control/service-control.ts';
import type { Store } from '../state/store.ts';
import type { TunnelStatus } from '../tunnels/status.ts';
import type { TrafficMeter, TrafficTotals } from '../traffic/meter.ts';

export interface BoxSources {
  store: Store;
  tunnelStatus: Pick<TunnelStatus, 'list'>;
  traffic: Pick<TrafficMeter, 'totals' | 'dropped'>;
  letsEncrypt: LetsEncrypt;
  serviceControl: ServiceControl;
  clock: Clock;
  log: Logger;
}

/** Service states are asked of systemd at most this often, however often Prometheus scrapes. */
export const SERVICE_STATES_TTL_MS = 10_000;
const SERVICE_STATES = ['active', 'inactive', 'failed', 'unknown'] as const;

/** The last answer of `load`, asked again once it is `ttlMs` old; a failed load is not kept. */
function cached<T>(ttlMs: number, clock: Clock, load: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    const now = clock.now();
    if (!last || now - last.at >= ttlMs) {
      const value = load();
      const entry = (last = { at: now, value });
      value.catch(() => {
        if (last === entry) last = null;
      });
    }
    return last.value;
  };
}

/**
 * State of the box, read when Prometheus scrapes: tunnels by state and each one's client, certificate days to expiry,
 * service states, and ticket, instance and session counts (all from memory but the first two lists).
 */
export function registerBoxMetrics(client: typeof PromClient, registry: PromClient.Registry, sources: BoxSources): void {
  const { Gauge } = client;
  const { store, log } = sources;
  const registers = [registry];
  const serviceStates = cached(SERVICE_STATES_TTL_MS, sources.clock, () => sources.serviceControl.list());

  new Gauge({
    name: 'relay_tunnels',
    help: 'Tunnels by state (enabled, disabled).',
    labelNames: ['state'],
    registers,
    collect() {
      const enabled = store.tunnels.value.filter((t) => t.enabled).length;
      this.set({ state: 'enabled' }, enabled);
      this.set({ state: 'disabled' }, store.tunnels.size - enabled);
    },
  });

  // one series per tunnel: bounded by the tunnel count, and subdomains are unique
  new Gauge({
    name: 'relay_tunnel_connected',
    help: 'Whether each enabled tunnel has its client connected (1) or not (0).',
    labelNames: ['tunnel'],
    registers,
    async collect() {
      this.reset();
      for (const t of await sources.tunnelStatus.list()) if (t.enabled) this.set({ tunnel: t.subdomain }, t.connected ? 1 : 0);
    },
  });

  // per tunnel and site vhost (`app:<fqdn>`, `site:<fqdn>`): the meter counts only the names of the
  // records' tunnels and sites, and a deleted one's vhost leaves it at once (lib/traffic/retention.ts)
  const { Counter } = client;
  const totals = (name: string, help: string, value: (t: Readonly<TrafficTotals>) => number) =>
    new Counter({
      name, help, labelNames: ['vhost'], registers,
      collect() {
        this.reset();
        for (const [vhost, t] of sources.traffic.totals()) this.inc({ vhost }, value(t));
      },
    });
  totals('relay_vhost_requests_total', 'Requests through each tunnel and site vhost since the panel started.', (t) => t.requests);
  totals('relay_vhost_received_bytes_total', 'Request bytes received by each tunnel and site vhost.', (t) => t.bytesIn);
  totals('relay_vhost_sent_bytes_total', 'Response bytes sent by each tunnel and site vhost.', (t) => t.bytesOut);
  totals('relay_vhost_errors_total', 'Answers with a 5xx status from each tunnel and site vhost.', (t) => t.errors);
  // anything local may send to the traffic port: what the meter refused, by why (lib/traffic/line.ts, meter.ts)
  new Counter({
    name: 'relay_traffic_lines_dropped_total',
    help: 'Traffic log lines not counted: invalid (not a traffic line, or a field out of bounds), unknown_vhost (a name the panel wrote no vhost for).',
    labelNames: ['reason'],
    registers,
    collect() {
      this.reset();
      const dropped = sources.traffic.dropped();
      this.inc({ reason: 'invalid' }, dropped.invalid);
      this.inc({ reason: 'unknown_vhost' }, dropped.unknownVhost);
    },
  });
  new Gauge({
    name: 'relay_certificate_days_to_expiry',
    help: "Days until each Let's Encrypt certificate expires.",
    labelNames: ['certificate'],
    registers,
    async collect() {
      this.reset();
      try {
        for (const cert of await sources.letsEncrypt.list()) this.set({ certificate: cert.name }, cert.daysLeft);
      } catch (error) {
        log.warn(`metrics: certificates could not be listed: ${(error as Error).message}`);
      }
    },
  });

  new Gauge({
    name: 'relay_service_state',
    help: 'Service states: 1 for the state each service is in, 0 for the others.',
    labelNames: ['service', 'state'],
    registers,
    async collect() {
      this.reset();
      try {
        for (const service of await serviceStates()) {
          for (const state of SERVICE_STATES) this.set({ service: service.name, state }, service.status === state ? 1 : 0);
        }
      } catch (error) {
        log.warn(`metrics: service states could not be read: ${(error as Error).message}`);
      }
    },
  });

  const counted = (name: string, help: string, count: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(count());
      },
    });
  counted('relay_tickets', 'Stored tickets (used and expired included, until the cleanup removes them).', () => store.tickets.size);
  counted('relay_ticket_instances', 'Registered ticket instances.', () => store.ticketInstances.size);

  new Gauge({
    name: 'relay_ticket_sessions',
    help: 'Ticket sessions by status.',
    labelNames: ['status'],
    registers,
    collect() {
      const byStatus = { active: 0, grace: 0, dead: 0 };
      for (const session of store.ticketSessions.value) byStatus[session.status]++;
      for (const [status, count] of Object.entries(byStatus)) this.set({ status }, count);
    },
  });
}
