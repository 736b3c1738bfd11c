// At the panel's start, after the tunnel repair: each vhost the records call for is rewritten where
// this release's templates make other text than the file holds. A box upgraded from an earlier
// release so gets the new templates (the login redirect, a closed site) without anyone touching
// its tunnels or sites; a start with nothing to change neither tests nor reloads nginx. A served
// vhost whose file is gone altogether (an uninstall, then an install that kept the data) is
// written again: the records win, as in the tunnel repair. Neither reads a vhost the panel stamped
// as this release's text of the same record and that is untouched since (lib/system/proxy/vhost-stamps.ts):
// a start with nothing changed stats the vhosts and reads none.
import { errorMessage } from './errors.ts';
import { servedVhosts, type VhostRecords } from './recorded-vhosts.ts';
import type { Runtime } from './runtime.ts';
import { DEFAULT_VHOST } from './onboarding/hostnames.ts';
import { appVhost } from './tunnels/context.ts';
import type { VhostSpec } from './system/types.ts';

export interface VhostRefresh {
  /** the vhost file names rewritten */
  rewritten: string[];
  /** protected sites the portal cannot reach, whose vhost answers 403 (lib/sites/portal-reach.ts) */
  closed: string[];
}

export async function refreshVhosts(services: VhostRecords & Pick<Runtime, 'log'>): Promise<VhostRefresh> {
  const { store, system, log } = services;
  let served: VhostSpec[] = [];
  let rewritten: string[] = [];
  try {
    served = await servedVhosts(services);
    // the default server is served once onboarding is done; before, it was written by install alone
    const specs: VhostSpec[] = [{ kind: 'ip-panel' }, ...(served.length ? served : [DEFAULT_VHOST]), ...store.tunnels.value.map(appVhost)];
    rewritten = await system.proxy.refresh(specs);
    if (rewritten.length) log.info(`rewrote ${rewritten.length} vhost${rewritten.length === 1 ? '' : 's'} with this release's templates: ${rewritten.join(', ')}`);
    const missing = [];
    // the default server is install's to write (beside the IP panel's), never the panel's start
    for (const spec of served) if (spec.kind !== 'default' && !(await system.proxy.state(system.proxy.vhostName(spec))).written) missing.push(spec);
    if (missing.length) {
      await system.proxy.apply(missing.map((spec) => ({ op: 'put' as const, spec, enabled: true })));
      const names = missing.map((spec) => system.proxy.vhostName(spec));
      log.info(`wrote ${names.length} missing vhost${names.length === 1 ? '' : 's'} the records call for: ${names.join(', ')}`);
      rewritten = [...rewritten, ...names];
    }
  } catch (error) {
    log.warn(`rewriting the vhosts with this release's templates failed, the earlier ones stay: ${errorMessage(error)}`);
  }
  const closed = served.flatMap((spec) => (spec.kind === 'site' && spec.closed ? [spec.fqdn] : []));
  const { domain } = services.config.value;
  for (const fqdn of closed) log.warn(`site ${fqdn}: portal protection cannot work outside ${domain}, so it answers 403 to everyone; turn its protection off to open it`);
  return { rewritten, closed };
}
