// The host system: every adapter drives the real program configured in the `system` section.
import { systemClock } from '../clock.ts';
import type { SystemConfig } from './config.ts';
import type { SystemContext } from './context.ts';
import { createSiteStorage } from './site-storage/site-storage.ts';
import { createStats } from './stats/stats.ts';
import { systemPki } from './pki/openssl-pki.ts';
import type { System } from './types.ts';
import { createHostAuthPortal } from './auth-portal/host.ts';
import { createHostCerts } from './certs/host.ts';
import { renewalEnvironment } from './certs/renewal-env.ts';
import { createHostDns } from './dns/host.ts';
import { createHostProxy } from './proxy/host.ts';
import { createHostServices } from './services/host.ts';
import { directRootActions } from './root/root-actions.ts';
import { rootCall, socketRootActions } from './root/root-client.ts';
import { createHostTunnelServer } from './tunnel-server/host.ts';
import { createHostPackages } from './packages/host.ts';
import { createStreamsAdapter } from './streams/host.ts';

export function createHostSystem(config: SystemConfig, ctx: SystemContext): System {
  const clock = ctx.clock ?? systemClock;
  const now = () => clock.now();
  const pki = systemPki(config, config.pki.dir);
  // an installed box reaches root only through its root helper (lib/root-helper)
  const helper = config.rootHelper ? socketRootActions(rootCall(config.rootHelper.socket, config.timeouts.defaultMs)) : null;
  const root = helper ?? directRootActions(config);
  const certs = createHostCerts(config, root, now, renewalEnvironment(ctx.dataDir), ctx.panelReload);
  const proxy = createHostProxy(config, { certs, pki, root, helper, publicLocations: ctx.publicLocations, dataDir: ctx.dataDir });
  return {
    proxy,
    certs,
    tunnelServer: createHostTunnelServer(config, root),
    authPortal: createHostAuthPortal(config, root),
    services: createHostServices(config, root, now),
    dns: createHostDns(config),
    stats: createStats({ now }),
    pki,
    siteStorage: createSiteStorage(config.sites.root),
    // apt-get may take minutes (the helper gives it certbotMs x 5): the call waits that long, not the usual 30 s
    packages: createHostPackages(config, config.rootHelper ? socketRootActions(rootCall(config.rootHelper.socket, config.timeouts.certbotMs * 5 + config.timeouts.defaultMs)) : null),
    // a stream change's nginx test reads the vhosts too: after the start's look at them
    streams: createStreamsAdapter(config, root, helper, () => proxy.lookNow()),
  };
}
