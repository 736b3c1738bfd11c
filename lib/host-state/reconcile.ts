// Brings the host to the desired host state (desired.ts) at the panel's start and after a restore.
// The tunnels' part goes through the tunnel service's repair (lib/tunnels/host-repair.ts), which holds
// each tunnel's lock; onboarding writes its part with stack.ts.
import { errorMessage } from '../errors.ts';
import { namesForLog, type Logger } from '../log.ts';
import type { System, VhostSpec } from '../system/types.ts';
import { startMark } from '../start-marks.ts';
import { repairStreams } from './streams.ts';
import { desiredHost, desiredTunnels, type DesiredHost, type DesiredTunnel, type HostRecords, type HostRepairReport } from './desired.ts';

export interface HostServices extends HostRecords {
  system: System;
  log: Logger;
  tunnels: { repairHost(tunnels?: readonly DesiredTunnel[]): Promise<HostRepairReport> };
}

export interface VhostRefresh {
  /** the vhost file names rewritten */
  rewritten: string[];
  /** protected sites the portal cannot reach, whose vhost answers 403 (lib/portal-reach.ts) */
  closed: string[];
}

/**
 * The panel's start, once onboarding is done: the tunnel repair (a crash between a host change and
 * the save that follows it leaves nginx and the tunnel server out of step with the records; the
 * records win), then the refresh. `desired`: the records' unless given.
 *
 * Before the panel listens, both take a tunnel's vhost file the panel stamped
 * (lib/system/proxy/vhost-stamps.ts) to be as the stamp says: the directories are listed, so a
 * vhost or link gone or left over is repaired, and a new release's templates or a changed record
 * are written, but no stamped tunnel file is looked at. At 1,000 tunnels that look is a stat each,
 * about a tenth of the start; the proxy adapter keeps that look (`deferLook`) for its `lookNow` (a
 * second after the panel listens, lib/main.ts) or the first change of vhosts or stream servers, whichever comes
 * first, this start's own included: a hand edit made while the panel was down is still repaired by
 * the start, a moment later, and never fails a change's nginx test. The start's refresh, when it
 * has anything to write, looks at every file itself instead. The served vhosts (the panel's own,
 * the portal's, the sites'), a fixed few, are looked at before it answers as ever.
 */
export async function reconcileAtStart(services: HostServices, desired?: DesiredHost): Promise<VhostRefresh> {
  const wanted = desired ?? (await desiredHost(services));
  startMark('desired host');
  const { proxy } = services.system;
  // before the pass, so that a change in it comes after the look; the records of the moment it runs
  proxy.deferLook(() => repairTouched(services, () => desiredTunnels(services.store.tunnels.value, services.config.value).map((tunnel) => tunnel.spec)));
  // the repair and the refresh ask of the same vhost files: one look at each serves both
  const onePass = <T>(run: () => Promise<T>) => (proxy.onePass ? proxy.onePass(run, { takeStampsOf: 'app' }) : run());
  return onePass(async () => {
    if (services.config.value.onboarding.status === 'COMPLETED') {
      await keepDeployHook(services);
      await services.tunnels.repairHost(wanted.tunnels).catch((error: Error) => services.log.warn(`tunnel repair failed: ${error.message}`));
      startMark('tunnel repair');
      await repairStreams(services.system.streams, wanted.streams, services.log);
      startMark('streams');
    }
    const refreshed = await refreshVhosts(services, wanted);
    startMark('vhost refresh');
    return refreshed;
  });
}

/** Each of the vhosts of `specsNow()` (the records' when the look runs) touched since the panel stamped it, rewritten from its spec. */
async function repairTouched({ system, log }: Pick<HostServices, 'system' | 'log'>, specsNow: () => VhostSpec[]): Promise<void> {
  try {
    const specs = specsNow();
    if (specs.length === 0) return;
    const rewritten = await system.proxy.refresh(specs, { touchedOnly: true });
    // a line either way: the start's work on the host ends here
    if (rewritten.length) log.info(`rewrote ${rewritten.length} vhost${rewritten.length === 1 ? '' : 's'} changed by hand since the panel wrote ${rewritten.length === 1 ? 'it' : 'them'}: ${namesForLog(rewritten)}`);
    else log.info(`the ${specs.length} tunnel vhost${specs.length === 1 ? ' is' : 's are'} as the panel wrote ${specs.length === 1 ? 'it' : 'them'}`);
  } catch (error) {
    log.warn(`rewriting the vhosts changed by hand failed, they stay as they are: ${errorMessage(error)}`);
  }
}

/** certbot's deploy hook as this release (and this launcher) writes it: an upgraded box's renewals make the certificate map too. */
async function keepDeployHook({ system, log }: Pick<HostServices, 'system' | 'log'>): Promise<void> {
  try {
    if (await system.certs.keepDeployHook?.()) log.info('rewrote certbot\'s deploy hook for this release');
  } catch (error) {
    log.warn(`checking certbot's deploy hook failed: ${errorMessage(error)}`);
  }
}

/**
 * After a restore: the served vhosts (default server, panel, portal and tunnel server; each site)
 * written and linked, then each tunnel's vhost and the tunnel server's authfile by the repair.
 * Certificates and credentials come from the backup; the repair asks for a certificate only when
 * one is missing. Answers what failed, one line each.
 */
export async function restoreHost(services: HostServices, desired?: DesiredHost): Promise<string[]> {
  const wanted = desired ?? (await desiredHost(services));
  if (wanted.served.length === 0) return [];
  await services.system.proxy.apply(wanted.served.map((spec) => ({ op: 'put' as const, spec, enabled: true })));
  const report = await services.tunnels.repairHost(wanted.tunnels);
  return [...report.failures, ...(await repairStreams(services.system.streams, wanted.streams, services.log))];
}

/**
 * Each vhost the desired state keeps current is rewritten where this release's templates make other
 * text than the file holds. A box upgraded from an earlier release so gets the new templates (the
 * login redirect, a closed site) without anyone touching its tunnels or sites; a start with nothing
 * to change neither tests nor reloads nginx. A served vhost whose file is gone altogether (an
 * uninstall, then an install that kept the data) is written again: the records win, as in the
 * tunnel repair. Neither reads a vhost the panel stamped as this release's text of the same spec
 * and that is untouched since (lib/system/proxy/vhost-stamps.ts): a start with nothing changed
 * stats the served vhosts, takes the tunnels' on their stamps' word (reconcileAtStart), and reads none.
 */
export async function refreshVhosts(services: Omit<HostServices, 'tunnels'>, desired?: DesiredHost): Promise<VhostRefresh> {
  const { system, log } = services;
  const wanted = desired ?? (await desiredHost(services));
  let written: string[] = [];
  try {
    const missing = [];
    // the default server is install's to write (beside the IP panel's), never the panel's start
    for (const spec of wanted.served) if (spec.kind !== 'default' && !(await system.proxy.state(system.proxy.vhostName(spec))).written) missing.push(spec);
    // before the refresh: an upgrade that makes the tunnels' vhosts routes needs their shared server first
    if (missing.length) {
      await system.proxy.apply(missing.map((spec) => ({ op: 'put' as const, spec, enabled: true })));
      written = missing.map((spec) => system.proxy.vhostName(spec));
      log.info(`wrote ${written.length} missing vhost${written.length === 1 ? '' : 's'} the records call for: ${namesForLog(written)}`);
    }
  } catch (error) {
    log.warn(`writing the missing vhosts the records call for failed: ${errorMessage(error)}`);
  }
  let refreshed: string[] = [];
  try {
    refreshed = await system.proxy.refresh(wanted.current);
    if (refreshed.length) log.info(`rewrote ${refreshed.length} vhost${refreshed.length === 1 ? '' : 's'} with this release's templates: ${namesForLog(refreshed)}`);
  } catch (error) {
    log.warn(`rewriting the vhosts with this release's templates failed, the earlier ones stay: ${errorMessage(error)}`);
  }
  const rewritten = [...refreshed, ...written];
  const closed = wanted.served.flatMap((spec) => (spec.kind === 'site' && spec.closed ? [spec.fqdn] : []));
  const { domain } = services.config.value;
  for (const fqdn of closed) log.warn(`site ${fqdn}: portal protection cannot work outside ${domain}, so it answers 403 to everyone; turn its protection off to open it`);
  return { rewritten, closed };
}
