// The switch's vhost step: every tunnel one label under the base domain is served by one shared
// server (the `tunnels` vhost, each tunnel's file a route), in either mode, so a switch puts that
// server in the new mode's form (the wildcard's certificate, or per name root's map) and rewrites
// the served vhosts (the sites, the servers of deeper names) for the new mode. Undone the other way
// round, and left as it was when it fails, so no vhost names a certificate that is not there.
import type { Config } from '../../config.ts';
import { stackVhosts, tunnelsVhost } from '../../host-state/vhost-specs.ts';
import type { Step } from '../../steps.ts';
import type { ProxyAdapter, VhostSpec } from '../../system/types.ts';
import { servedSpecs, type ServedRecords } from './served-specs.ts';

type Proxy = Pick<ProxyAdapter, 'apply' | 'refresh' | 'vhostName' | 'state'>;

/** Rewrites the served vhosts; none before the first tunnel or site (a switch during onboarding). */
async function refreshServed(proxy: Pick<ProxyAdapter, 'refresh'>, specs: VhostSpec[]): Promise<void> {
  if (specs.length > 0) await proxy.refresh(specs);
}

/**
 * From `before`'s mode to `after`'s: the shared server put in `after`'s form when it is there or
 * the stack is served (onboarding's vhosts task writes it with the stack otherwise), then the
 * served vhosts. Asked of the host, not of the status alone: a switch during provisioning after
 * the vhosts task has written the stack would otherwise leave every later tunnel a route of a
 * server that is not there.
 */
export function sharedServerStep(proxy: Proxy, records: () => ServedRecords, before: Config, after: Config): Pick<Step, 'run' | 'undo'> {
  const domain = after.domain;
  let put = false;
  let previous: VhostSpec | null = null;
  const putBack = async () => {
    if (!put || domain === null) return;
    const server = tunnelsVhost(domain, after);
    await proxy.apply([previous ? { op: 'put', spec: previous, enabled: true } : { op: 'remove', name: proxy.vhostName(server) }]);
  };
  return {
    async run() {
      if (domain !== null) {
        const server = tunnelsVhost(domain, after);
        const there = (await proxy.state(proxy.vhostName(server))).written;
        previous = there ? tunnelsVhost(domain, before) : null;
        // already there in this form (a switch asked again): no write, test and reload for nothing
        const unchanged = previous !== null && JSON.stringify(previous) === JSON.stringify(server);
        put = !unchanged && (there || before.onboarding.status === 'COMPLETED' || (await proxy.state(proxy.vhostName(stackVhosts(domain)[0]!))).written);
        if (put) await proxy.apply([{ op: 'put', spec: server, enabled: true }]);
      }
      try {
        await refreshServed(proxy, servedSpecs(records(), after));
      } catch (e) {
        await putBack().catch(() => {});
        throw e;
      }
    },
    async undo() {
      await refreshServed(proxy, servedSpecs(records(), before));
      await putBack();
    },
  };
}
