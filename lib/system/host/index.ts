// The host system: every adapter drives the real program configured in the `system` section.
import { systemClock } from '../../clock.ts';
import type { SystemConfig } from '../config.ts';
import type { SystemContext } from '../context.ts';
import { createSiteStorage } from '../common/site-storage.ts';
import { createStats } from '../common/stats.ts';
import { systemPki } from '../pki/openssl-pki.ts';
import type { System } from '../types.ts';
import { createHostAuthPortal } from './auth-portal.ts';
import { createHostCerts } from './certs.ts';
import { createHostDns } from './dns.ts';
import { createHostProxy } from './nginx.ts';
import { createHostServices } from './services.ts';
import { directRootActions } from './root-actions.ts';
import { rootCall, socketRootActions } from './root-client.ts';
import { createHostTunnelServer } from './tunnel-server.ts';

export function createHostSystem(config: SystemConfig, ctx: SystemContext): System {
  const clock = ctx.clock ?? systemClock;
  const now = () => clock.now();
  const pki = systemPki(config, config.pki.dir);
  // an installed box reaches root only through its root helper (lib/root-helper)
  const helper = config.rootHelper ? socketRootActions(rootCall(config.rootHelper.socket, config.timeouts.defaultMs)) : null;
  const root = helper ?? directRootActions(config);
  const certs = createHostCerts(config, root, now);
  return {
    proxy: createHostProxy(config, { certs, pki, root, helper, publicLocations: ctx.publicLocations, dataDir: ctx.dataDir }),
    certs,
    tunnelServer: createHostTunnelServer(config, root),
    authPortal: createHostAuthPortal(config, root),
    services: createHostServices(config, root, now),
    dns: createHostDns(config),
    stats: createStats({ now }),
    pki,
    siteStorage: createSiteStorage(config.sites.root),
  };
}
