// What the alerts look at, and how often: tunnels every 30 s (the status's one read of the kernel's
// socket tables), services every minute, the disk every 5 minutes, certificates every hour (certbot's
// listing is slow) and the renewal timer's certificates against the limits as often, agents at each change of their collection. One 30 s tick runs what is due; a
// check runs only while some webhook asks for its events (so the first one comes within 30 s of a
// webhook's creation), never twice at once, and a failed one is logged and tried at the next tick.
import type { Clock } from '../clock.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { LetsEncrypt } from '../certs/letsencrypt.ts';
import type { IssuanceLimits } from '../certs/limits/service.ts';
import type { ServiceControl } from '../service-control/service-control.ts';
import type { AlertEventName } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import type { StatsAdapter } from '../system/types.ts';
import type { StreamStatusItem } from '../tunnels/streams/status.ts';
import type { TunnelStatus } from '../tunnels/status.ts';
import { alertRevocations } from './agent-watch.ts';
import { BoxWatch } from './box-watch.ts';
import type { AlertService } from './service.ts';
import { TunnelWatch } from './tunnel-watch.ts';

export const TICK_MS = 30_000;
const TUNNELS_EVERY_MS = 30_000;
const SERVICES_EVERY_MS = 60_000;
const DISK_EVERY_MS = 5 * 60_000;
const CERTS_EVERY_MS = 60 * 60_000;

interface AlertSources {
  alerts: AlertService;
  tunnelStatus: Pick<TunnelStatus, 'list'>;
  /** the TCP and UDP tunnels' client states; none when not given */
  streamStatus?: () => Promise<readonly StreamStatusItem[]>;
  serviceControl: Pick<ServiceControl, 'list'>;
  stats: Pick<StatsAdapter, 'snapshot'>;
  letsEncrypt: Pick<LetsEncrypt, 'list' | 'onRenewalFailure'>;
  store: Pick<Store, 'agents'>;
  /** reads certbot's archive again; its listeners check cert.limit_near. None: not checked here */
  certLimits?: Pick<IssuanceLimits, 'refresh'>;
  clock: Clock;
  log: Logger;
}

export class AlertWatch {
  readonly tunnels: TunnelWatch;
  readonly box: BoxWatch;
  /** check name -> its run under way */
  readonly #running = new Map<string, Promise<void>>();
  /** check name -> when it last ran */
  readonly #ranAt = new Map<string, number>();
  readonly #stops: (() => void)[] = [];

  constructor(private readonly sources: AlertSources) {
    const { alerts, store } = sources;
    this.tunnels = new TunnelWatch(alerts);
    this.box = new BoxWatch(alerts);
    alertRevocations(store.agents, alerts);
    this.#stops.push(sources.letsEncrypt.onRenewalFailure((name, reason) => this.box.renewalFailed(name, reason)));
  }

  /** Runs the due checks every TICK_MS until `close()`. */
  start(): void {
    this.#stops.push(this.sources.clock.every(TICK_MS, () => this.#tick()));
  }

  #tick(): void {
    const now = this.sources.clock.now();
    const due = (name: string, ms: number) => now - (this.#ranAt.get(name) ?? -Infinity) >= ms;
    if (due('tunnels', TUNNELS_EVERY_MS)) void this.checkTunnels();
    if (due('services', SERVICES_EVERY_MS)) void this.checkServices();
    if (due('disk', DISK_EVERY_MS)) void this.checkDisk();
    if (due('certs', CERTS_EVERY_MS)) void this.checkCerts();
    if (due('certLimits', CERTS_EVERY_MS)) void this.checkCertLimits();
  }

  checkTunnels(): Promise<void> {
    return this.#check('tunnels', ['tunnel.down', 'tunnel.up'], async () => {
      const streams = (await this.sources.streamStatus?.()) ?? [];
      const watched = streams.map((s) => ({ id: s.id, enabled: s.enabled, connected: s.connected, lastSeen: null, tunnel: { id: s.id, protocol: s.protocol, publicPort: s.publicPort, port: s.port } }));
      this.tunnels.observe([...(await this.sources.tunnelStatus.list()), ...watched], this.sources.clock.now());
    });
  }

  checkServices(): Promise<void> {
    // the panel is the one answering: it is active whenever this runs
    return this.#check('services', ['service.inactive'], async () => this.box.observeServices((await this.sources.serviceControl.list()).filter((s) => s.name !== 'panel')));
  }

  checkDisk(): Promise<void> {
    return this.#check('disk', ['disk.low'], async () => this.box.observeDisk((await this.sources.stats.snapshot()).disk));
  }

  checkCerts(): Promise<void> {
    return this.#check('certs', ['cert.expiring', 'cert.renewal_failed'], async () => this.box.observeCerts(await this.sources.letsEncrypt.list()));
  }

  /** The timer's renewals are counted only when read: a read finding one that crosses 80 % sends the alert. */
  checkCertLimits(): Promise<void> {
    const limits = this.sources.certLimits;
    if (!limits) return Promise.resolve();
    return this.#check('certLimits', ['cert.limit_near'], () => limits.refresh());
  }

  /** Resolves when no check is under way (tests). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()]);
  }

  close(): void {
    for (const stop of this.#stops.splice(0)) stop();
  }

  async #check(name: string, events: AlertEventName[], run: () => Promise<void>): Promise<void> {
    if (this.#running.has(name) || !events.some((e) => this.sources.alerts.subscribers(e).length > 0)) return;
    this.#ranAt.set(name, this.sources.clock.now());
    const running = run()
      .catch((error: unknown) => this.sources.log.warn(`alerts: checking ${name} failed: ${errorMessage(error)}`))
      .finally(() => this.#running.delete(name));
    this.#running.set(name, running);
    await running;
  }
}
