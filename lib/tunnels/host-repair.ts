// Brings nginx and the tunnel server to the tunnels' part of the desired host state after a crash
// between a host change and the save that follows it: vhosts of tunnels that have no record, enabled
// tunnels whose vhost file or link is gone or was edited by hand, links left behind by disabled
// tunnels. The records win. At the start a tunnel's stamped file is taken on its stamp's word
// (lib/host-state/reconcile.ts): a hand edit waits for the start's look, which the proxy adapter
// runs before the repair's change when it has one. Certificates are never removed (a deleted tunnel's certificate stays, as the spec says).
import { errorMessage } from '../errors.ts';
import { desiredTunnels, type DesiredTunnel, type HostRepairReport } from '../host-state/desired.ts';
import type { Step } from '../steps.ts';
import { ensureCertificate } from '../certs/dns01/lineage.ts';
import type { LinkPlaces, VhostChange, VhostState } from '../system/types.ts';
import type { TunnelContext } from './context.ts';
import { CERTIFICATE_FAILED, NGINX_FAILED } from './steps.ts';

/**
 * The one proxy change that brings a tunnel's vhost in line, null when it already is: an enabled
 * tunnel's vhost written (again, over a hand edit) and linked; a disabled one's link removed.
 */
function hostChange(ctx: TunnelContext, tunnel: DesiredTunnel, vhost: VhostState | undefined, places?: LinkPlaces): VhostChange | null {
  if (tunnel.enabled) return vhost?.written && vhost.enabled && !vhost.edited && (!places || linkedWhereItBelongs(tunnel, vhost.name, places)) ? null : { op: 'put', spec: tunnel.spec, enabled: true };
  return vhost?.enabled ? { op: 'disable', name: ctx.system.proxy.vhostName(tunnel.spec) } : null;
}

/**
 * A shared tunnel's route is linked in the routes directory alone, any other vhost in sites-enabled
 * alone: a link left in the other one (a mode switch cut short, a hand move) would make nginx read a
 * map entry as a directive, or serve the name from neither place. The put moves it.
 */
function linkedWhereItBelongs(tunnel: DesiredTunnel, name: string, places: LinkPlaces): boolean {
  const route = tunnel.spec.kind === 'app' && tunnel.spec.shared === true;
  return route ? places.routes.has(name) && !places.enabled.has(name) : !places.routes.has(name);
}

/** The steps of `hostChange`, a put after the tunnel's certificate (issued only when missing); none when in line. */
export function hostRepairSteps(ctx: TunnelContext, tunnel: DesiredTunnel, vhost: VhostState | undefined): Step[] {
  const change = hostChange(ctx, tunnel, vhost);
  if (change === null) return [];
  const apply: Step = { failure: NGINX_FAILED, run: () => ctx.system.proxy.apply([change]) };
  return change.op === 'put' ? [{ failure: CERTIFICATE_FAILED, run: () => certificateFor(ctx, tunnel) }, apply] : [apply];
}

/** The tunnel's certificate, issued only when missing (none when the wildcard covers it). */
async function certificateFor(ctx: TunnelContext, tunnel: DesiredTunnel): Promise<void> {
  const { email } = ctx.config.value;
  if (!email) throw new Error('no email is configured for certificate registration');
  await ensureCertificate(ctx.system.certs, ctx.config.value, tunnel.fqdn, email);
}

/** The state of one tunnel's vhost on the host. */
export function vhostStateOf(ctx: TunnelContext, tunnel: DesiredTunnel): Promise<VhostState> {
  const { proxy } = ctx.system;
  return proxy.state(proxy.vhostName(tunnel.spec));
}


/**
 * The whole repair: orphan vhosts removed, every tunnel's vhost aligned, then the authfile
 * rewritten with the desired ports. A failure is logged and reported, and the rest still runs.
 * `tunnels`: the desired host state's (desired.ts), the records' unless given.
 */
export type { HostRepairReport };

export async function repairHost(ctx: TunnelContext, tunnels: readonly DesiredTunnel[] = desiredTunnels(ctx.store.tunnels.value, ctx.config.value)): Promise<HostRepairReport> {
  const { proxy } = ctx.system;
  const report: HostRepairReport = { orphans: [], repaired: [], failures: [] };
  const { orphans, astray } = await repairPlan(ctx, tunnels);
  if (orphans.length > 0) {
    try {
      await proxy.apply(orphans.map((name) => ({ op: 'remove', name })));
      report.orphans = orphans;
    } catch (error) {
      report.failures.push(`removing ${orphans.join(', ')}: ${errorMessage(error)}`);
    }
  }
  if (astray.length > 0) await ctx.locks.runAll(astray.map(({ tunnel }) => tunnel.id), () => repairTogether(ctx, astray, report));
  try {
    await ctx.allowedPorts.sync();
  } catch (error) {
    report.failures.push(`tunnel server: ${errorMessage(error)}`);
  }
  if (report.orphans.length || report.repaired.length) {
    ctx.log.info(`tunnels: removed ${report.orphans.length} orphan vhosts, repaired ${report.repaired.length} tunnels`);
  }
  for (const failure of report.failures) ctx.log.warn(`tunnel repair failed: ${failure}`);
  return report;
}

/** The app vhosts no tunnel names, and the proxy change that brings each tunnel out of line back. */
async function repairPlan(ctx: TunnelContext, tunnels: readonly DesiredTunnel[]): Promise<{ orphans: string[]; astray: Array<{ tunnel: DesiredTunnel; change: VhostChange }> }> {
  const { proxy } = ctx.system;
  // each tunnel's name once: a start asks them of 1,000 tunnels
  const names = tunnels.map((tunnel) => proxy.vhostName(tunnel.spec));
  const [listed, places] = await Promise.all([proxy.list('app'), proxy.linkPlaces()]);
  const present = new Map(listed.map((vhost) => [vhost.name, vhost]));
  const named = new Set(names);
  const orphans = [...present.keys()].filter((name) => !named.has(name));
  const astray: Array<{ tunnel: DesiredTunnel; change: VhostChange }> = [];
  for (const [i, tunnel] of tunnels.entries()) {
    const change = hostChange(ctx, tunnel, present.get(names[i]!), places);
    if (change) astray.push({ tunnel, change });
  }
  return { orphans, astray };
}

/**
 * The tunnels out of line with the desired state, repaired with one nginx test and reload for all
 * of them: a box whose vhosts are all missing (an uninstall, then an install that kept the data)
 * would otherwise test every vhost once per tunnel, which at 1,000 vhosts and 2 s a test is half an
 * hour. Each enabled tunnel's certificate comes first (a failure leaves that tunnel out); when the
 * batch fails, each tunnel is applied on its own, so one bad vhost is named and the rest still land.
 */
async function repairTogether(ctx: TunnelContext, astray: ReadonlyArray<{ tunnel: DesiredTunnel; change: VhostChange }>, report: HostRepairReport): Promise<void> {
  const { proxy } = ctx.system;
  const ready: Array<{ tunnel: DesiredTunnel; change: VhostChange }> = [];
  for (const { tunnel, change } of astray) {
    try {
      if (change.op === 'put') await certificateFor(ctx, tunnel);
      ready.push({ tunnel, change });
    } catch (error) {
      report.failures.push(`tunnel ${tunnel.fqdn}: ${CERTIFICATE_FAILED}: ${errorMessage(error)}`);
    }
  }
  if (ready.length === 0) return;
  try {
    await proxy.apply(ready.map(({ change }) => change));
    report.repaired.push(...ready.map(({ tunnel }) => tunnel.id));
    return;
  } catch {
    // one of them broke the batch: each on its own names it
  }
  for (const { tunnel, change } of ready) {
    try {
      await proxy.apply([change]);
      report.repaired.push(tunnel.id);
    } catch (error) {
      report.failures.push(`tunnel ${tunnel.fqdn}: ${NGINX_FAILED}: ${errorMessage(error)}`);
    }
  }
}
