import { join } from 'node:path';
import { RestoreRequests } from './backup/restore-requests.ts';
import { AlertService } from './alerts/service.ts';
import { AlertWatch } from './alerts/watch.ts';
import { AuditLog } from './audit/audit-log.ts';
import { auditRegistry } from './audit/registry-events.ts';
import { ApiDescription } from './api-description.ts';
import { IdentityRegistry } from './auth/identity-registry.ts';
import { watchRegistryFiles } from './auth/registry-files.ts';
import { TwoFactor } from './auth/two-factor.ts';
import type { AdminCert } from './certs/admin-cert.ts';
import type { AgentCerts } from './certs/agents.ts';
import type { Enrollment } from './certs/enrollment.ts';
import type { LetsEncrypt } from './certs/letsencrypt.ts';
import { CertificateModeService } from './certs/dns01/service.ts';
import { createCertServices } from './certs/service.ts';
import { IssuanceLimits } from './certs/limits/service.ts';
import { NearLimitAlert } from './alerts/cert-limit-watch.ts';
import { systemClock, type Clock } from './clock.ts';
import type { ConfigStore } from './config.ts';
import { createLogger, type Logger } from './log.ts';
import { Metrics } from './metrics/metrics.ts';
import { OnboardingService, type OnboardingOptions } from './onboarding/service.ts';
import { PluginService } from './plugins/service.ts';
import { PushInstallService } from './plugins/push-install.ts';
import { ServiceControl } from './service-control/service-control.ts';
import { StatsFeed } from './service-control/stats-feed.ts';
import type { Store } from './state/store.ts';
import type { System } from './system/types.ts';
import { SiteService } from './sites/service.ts';
import { SitesStatusFeed } from './sites/status-feed.ts';
import type { TicketLimits } from './tickets/limits.ts';
import { TicketService } from './tickets/service.ts';
import { startTicketTimers } from './tickets/timers.ts';
import { InvitationService } from './invitations/service.ts';
import type { TunnelDeps } from './tunnels/context.ts';
import { TunnelService } from './tunnels/service.ts';
import { TunnelStatus } from './tunnels/status.ts';
import { TrafficMeter } from './traffic/meter.ts';
import { receiveTraffic } from './traffic/receiver.ts';
import { reportDroppedLines } from './traffic/dropped-report.ts';
import { followServedVhosts } from './traffic/retention.ts';
import { createPasswordHasher, type PasswordHasher } from './users/password-hasher.ts';
import { UserService } from './users/service.ts';
import { AccessService } from './access/service.ts';
import type { Mode } from './mode.ts';
import { PublicLinks } from './public-links.ts';
import { KeyedLock } from './keyed-lock.ts';
import { SharedGate } from './shared-gate.ts';

export type { Mode };

/**
 * What one running panel is made of: its configuration, store, host adapters, clock, log and domain
 * services. Handlers reach it as `services`. Built once per app; tests build as many as they like.
 */
export interface Runtime {
  mode: Mode;
  config: ConfigStore;
  store: Store;
  system: System;
  clock: Clock;
  log: Logger;
  identities: IdentityRegistry;
  tunnels: TunnelService;
  /** whether each tunnel's client is connected (lib/tunnels/status.ts) */
  tunnelStatus: TunnelStatus;
  /** requests per tunnel and site vhost, from nginx's traffic log (lib/traffic) */
  traffic: TrafficMeter;
  /** how a browser opens the names the panel serves: nginx's https, or the sandbox's own server (lib/public-links.ts) */
  publicLinks: PublicLinks;
  sites: SiteService;
  /** webhooks and the alerts sent to them (lib/alerts) */
  alerts: AlertService;
  /** what raises alerts: tunnels, services, disk, certificates, agents */
  alertWatch: AlertWatch;
  /** each viewer's sites and their traffic, for WS /api/sites/status/live (lib/sites/status-feed.ts) */
  sitesStatus: SitesStatusFeed;
  ticketing: TicketService;
  onboarding: OnboardingService;
  users: UserService;
  /** who may reach each tunnel and site, and the groups (lib/access) */
  access: AccessService;
  invitations: InvitationService;
  /** Installed plugins; the composition root attaches the HTTP core (`plugins.attach`). */
  plugins: PluginService;
  pushInstall: PushInstallService;
  /** bcrypt on a worker thread: portal passwords (users, invitations, the onboarding's admin). */
  hasher: PasswordHasher;
  agentCerts: AgentCerts;
  enrollment: Enrollment;
  adminCert: AdminCert;
  letsEncrypt: LetsEncrypt;
  /** the ACME orders the panel placed, counted against the CA's limits (lib/certs/limits) */
  certLimits: IssuanceLimits;
  /** one certificate per name, or the wildcard through DNS-01 (lib/certs/dns01) */
  certificateMode: CertificateModeService;
  twoFactor: TwoFactor;
  serviceControl: ServiceControl;
  systemStats: StatsFeed;
  /** Who changed what: requests, provisioning, registry changes, plugin installs (`audit.record`). */
  audit: AuditLog;
  /** The OpenAPI description of the routes served now; createApp keeps it current. */
  apiDescription: ApiDescription;
  /** A restore uploaded to the panel, handed to the process that stops and starts it (lib/backup/restore-requests.ts). */
  restoreRequests: RestoreRequests;
  /** Prometheus metrics; null when `metrics.enabled` is false. */
  metrics: Metrics | null;
  /**
   * Starts what runs by itself: the timers (ticket sweeps, tunnel status polls, the sites feed,
   * alert checks, the admin certificate's grace check, the dropped-lines report), the watch on the
   * registry files and the traffic log's UDP listener. Building starts none of them, so a restore
   * can build a runtime beside a running panel. Resolves once the listener is bound (or refused, a
   * warning); a second call does nothing. `close()` stops them.
   */
  start(): Promise<void>;
  /** Registers cleanup (timers, child processes) run by `close()`. */
  onClose(task: () => void | Promise<void>): void;
  /** Stops timers, waits for pending writes and folds the store journals into their snapshots. */
  close(): Promise<void>;
}

export interface RuntimeDeps {
  mode: Mode;
  config: ConfigStore;
  store: Store;
  system: System;
  clock?: Clock;
  log?: Logger;
  /** The spec's unless given (the benchmark lifts them). */
  ticketLimits?: Partial<TicketLimits>;
  /** Provisioning settings (tests pass a cheaper password hash and shorter waits). */
  onboarding?: OnboardingOptions;
  /** How long audit entries wait to share one synchronized write (the audit log's 20 ms unless given; the testing kit passes 0). */
  auditCommitWindowMs?: number;
  /** The sockets in use by port, for the TCP and UDP tunnels' port checks: the kernel's unless given (the testing kit gives its sandbox's table). */
  liveSockets?: TunnelDeps['liveSockets'];
}

export function createRuntime(deps: RuntimeDeps): Runtime {
  const closers: (() => void | Promise<void>)[] = [];
  const clock = deps.clock ?? systemClock;
  const log = deps.log ?? createLogger();
  const traffic = new TrafficMeter(clock);
  const { onboarding: onboardingOptions, ...rest } = deps;
  const publicLinks = new PublicLinks(() => deps.config.value);
  const base = { ...rest, clock, log, publicLinks };
  const identities = new IdentityRegistry(deps.store);
  const audit = new AuditLog({ dir: join(deps.store.dataDir, 'audit'), clock, persistence: deps.store.persistence, log, ...(deps.auditCommitWindowMs === undefined ? {} : { commitWindowMs: deps.auditCommitWindowMs }) });
  auditRegistry(deps.store, audit);
  const hasher = createPasswordHasher();
  const users = new UserService({ ...base, hasher });
  const ticketing = new TicketService({ store: deps.store, clock, identities, relayDomain: () => deps.config.value.domain, limits: deps.ticketLimits });
  const plugins = new PluginService(base);
  // agents may be granted the capabilities of ticket scopes and of the enabled plugins
  const extraCapabilities = () => new Set([...ticketing.capabilityNames(), ...plugins.capabilityNames()]);
  const certLimits = new IssuanceLimits({ config: deps.config, store: deps.store, clock, log, certs: deps.system.certs });
  // what orders certificates sees the certificates adapter through the limits: refused before certbot runs
  // a tunnel's vhost is rendered by its own changes and by access changes: one lock per tunnel for
  // both, and a certificate mode switch runs alone against all of them (lib/shared-gate.ts)
  const tunnelLocks = new KeyedLock();
  const modeGate = new SharedGate();
  const ordering = { ...base, system: certLimits.guard(deps.system), tunnelLocks, modeGate };
  const certs = createCertServices({ ...ordering, scopeCapabilities: extraCapabilities });
  const sites = new SiteService({ ...ordering, users });
  const tunnelStatus = new TunnelStatus(() => deps.store.tunnels.value, deps.system.tunnelServer, clock, log, traffic);
  const serviceControl = new ServiceControl(deps.system.services);
  const alerts = new AlertService(base);
  const tunnels = new TunnelService({ ...ordering, liveSockets: deps.liveSockets });
  const alertWatch = new AlertWatch({
    alerts, tunnelStatus, streamStatus: () => tunnels.streams.status(traffic), serviceControl, stats: deps.system.stats, letsEncrypt: certs.letsEncrypt, store: deps.store, certLimits, clock, log,
  });
  const services: Runtime = {
    ...base,
    identities,
    ticketing,
    agentCerts: certs.agentCerts,
    enrollment: certs.enrollment,
    adminCert: certs.adminCert,
    letsEncrypt: certs.letsEncrypt,
    certLimits,
    certificateMode: new CertificateModeService(ordering),
    twoFactor: new TwoFactor(base),
    tunnels,
    traffic,
    tunnelStatus,
    sites,
    sitesStatus: new SitesStatusFeed(sites, traffic, deps.store, clock, log),
    alerts,
    alertWatch,
    onboarding: new OnboardingService({ ...ordering, audit }, { hashPassword: hasher.hash, ...onboardingOptions }),
    users,
    access: new AccessService({ ...base, users, audit, tunnelLocks, modeGate }),
    invitations: new InvitationService({ ...base, users }),
    plugins,
    pushInstall: new PushInstallService({ ...base, identities }),
    hasher,
    serviceControl,
    systemStats: new StatsFeed(deps.system.stats),
    audit,
    apiDescription: new ApiDescription(),
    restoreRequests: new RestoreRequests(),
    metrics: null,
    start: () => (starting ??= startRuntime(services, certs.adminCert)),
    onClose: (task) => void closers.push(task),
    async close() {
      for (const task of [...closers].reverse()) await task();
      // A snapshot that cannot be written (a full disk) loses nothing, its journals stay; the rest
      // is still flushed, and the failure is the caller's to report (a non-zero exit).
      const folded = await deps.store.close().then(
        () => null,
        (error: unknown) => ({ error }),
      );
      await audit.close();
      await certs.enrollment.flush();
      await certs.adminCert.flush();
      await deps.config.flush();
      if (folded) throw folded.error;
    },
  };
  let starting: Promise<void> | undefined;
  if (deps.config.value.metrics.enabled) services.metrics = new Metrics(services);
  // a run in progress finishes its current task before the store is flushed
  services.onClose(() => hasher.close());
  services.onClose(() => services.onboarding.close());
  // log follow processes end with the panel
  services.onClose(() => services.serviceControl.close());
  services.onClose(() => services.tunnelStatus.close());
  services.onClose(() => alertWatch.close());
  const nearLimit = new NearLimitAlert(alerts);
  services.onClose(certLimits.onRecorded(() => nearLimit.observe(certLimits.countsLoaded().counts)));
  // an alert being sent ends within its timeout; what still waits is given up with the panel
  services.onClose(() => services.alerts.close());
  services.onClose(() => services.sitesStatus.close());
  followServedVhosts(traffic, deps.store);
  return services;
}

async function startRuntime(services: Runtime, adminCert: AdminCert): Promise<void> {
  const { clock, log, store, config, traffic } = services;
  services.onClose(startTicketTimers(services.ticketing, clock, log));
  services.onClose(watchRegistryFiles(store, log));
  services.onClose(adminCert.start());
  services.tunnelStatus.start();
  services.alertWatch.start();
  services.sitesStatus.start();
  services.onClose(reportDroppedLines(traffic, clock, log));
  const trafficPort = config.value.system.nginx.trafficPort;
  if (trafficPort === null) return;
  const receiving = receiveTraffic(trafficPort, traffic, (e) => log.warn(`traffic log: ${e.message}`)).catch((e: Error) => {
    log.warn(`traffic log: cannot listen on 127.0.0.1:${trafficPort} (udp): ${e.message}`);
    return null;
  });
  services.onClose(async () => (await receiving)?.());
  await receiving;
}
