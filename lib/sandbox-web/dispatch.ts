// The sandbox's stand-in for nginx's tunnel and site vhosts: its own server answers a request whose
// Host is an enabled tunnel's name (proxied to the tunnel's port) or a managed site's (its files),
// and feeds the traffic meter as nginx's log does. Everything else (the panel's own names, an IP,
// an unknown name) is the panel's, as before. Only the sandbox composition has this (lib/main.ts):
// on a real host nginx answers these names and the panel never sees them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../runtime.ts';
import { siteTrafficName, tunnelTrafficName } from '../traffic/names.ts';
import { serveSiteFile } from './site-files.ts';
import { proxyToTunnel } from './tunnel-proxy.ts';
import { meterRequest } from './traffic-tap.ts';

/** True when it answered the request; false: the panel's. */
export type SandboxDispatch = (req: IncomingMessage, res: ServerResponse) => boolean;

type Services = Pick<Runtime, 'mode' | 'store' | 'system' | 'traffic' | 'publicLinks' | 'log'>;

interface Collection<R> { readonly value: readonly R[]; readonly version: number }

/**
 * The records a name answers for, indexed once per change of the collection: every request the
 * panel's server takes, API calls included, asks, and a scan of 1,000 tunnels per request is not free.
 */
function indexByName<R extends { fqdn: string }>(records: Collection<R>, serves: (record: R) => boolean): (name: string) => R | undefined {
  let version = -1;
  let byName = new Map<string, R>();
  return (name) => {
    if (records.version !== version) {
      byName = new Map(records.value.filter(serves).map((r) => [r.fqdn, r]));
      version = records.version;
    }
    return byName.get(name);
  };
}

/** The Host's name, lowercased, without its port; undefined when there is none. */
function hostName(host: string | undefined): string | undefined {
  if (!host) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * The dispatch of the sandbox's server; undefined on a real host (system.driver host), and in
 * production mode, where a real nginx front (the end-to-end tests') answers those names.
 */
export function sandboxWeb(services: Services): SandboxDispatch | undefined {
  if (!services.publicLinks.sandbox || services.mode !== 'development') return undefined;
  const { store, system, traffic, log } = services;
  const tunnelNamed = indexByName(store.tunnels, (t) => t.enabled);
  const siteNamed = indexByName(store.sites, (s) => s.type === 'managed');
  return (req, res) => {
    const name = hostName(req.headers.host);
    if (!name) return false;
    const tunnel = tunnelNamed(name);
    if (tunnel) {
      meterRequest(traffic, tunnelTrafficName(tunnel.fqdn), req, res);
      proxyToTunnel(req, res, tunnel.port);
      return true;
    }
    const site = siteNamed(name);
    if (site) {
      meterRequest(traffic, siteTrafficName(site.fqdn), req, res);
      serveSiteFile(req, res, system.siteStorage.dirOf(site.id), site.spaMode).catch((error: Error) => {
        log.warn(`sandbox site ${site.fqdn}: ${error.message}`);
        res.destroy();
      });
      return true;
    }
    return false;
  };
}
