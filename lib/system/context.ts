// What createSystem gets besides the configuration.
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';

/** Answers a sandbox DNS query: IPv4 addresses, or null/[] when the name does not resolve. */
export type SandboxDnsResolver = (name: string) => string[] | null | Promise<string[] | null>;

import type { ServerCertMaker } from './pki/self-signed.ts';
import type { PkiAdapter, PublicLocations } from './types.ts';
import type { SocketTables } from './common/tcp-listeners.ts';

export interface SystemContext {
  dataDir: string;
  /** Panel locations open without a client certificate; none when absent (every location needs one). */
  publicLocations?: PublicLocations;
  log?: (msg: string) => void;
  /** The app's clock (lib/clock.ts), which the adapters read time from and time their timers by; the system clock when absent. */
  clock?: Clock;
  /**
   * Host only: the argv that runs the running panel's `nginx-reload` for its configuration
   * (lib/nginx-reload-command.ts), which certbot's deploy hook runs on a box without a root helper
   * (certs/host.ts deployHookCommand); none where no bundle runs (the TypeScript sources).
   */
  panelReload?: readonly string[];
  /**
   * Sandbox only: answers for names that no explicit record (config `sandbox.dns`,
   * `sandboxControls(system).setDns`) covers. `hostIpResolver` builds the usual one.
   */
  sandboxDns?: SandboxDnsResolver;
  /** Sandbox only: the panel's own log, which the `panel` journal shows unless `sandbox.panelLogFile` is set. */
  panelLog?: Pick<Logger, 'recent' | 'subscribe'>;
  /**
   * Sandbox only: while a journal of proxy, tunnel-server or auth-portal is followed and the unit is
   * active, a made-up line every so many ms, so `npm start` shows live logs on a laptop.
   */
  madeUpLogsEveryMs?: number;
  /** Sandbox only: the PKI to use instead of the openssl one (lib/testing.ts passes its fake). */
  sandboxPki?: PkiAdapter;
  /** Sandbox only: makes the server certificates (ACME stand-in, IP panel) instead of openssl (lib/testing.ts passes its fake). */
  sandboxServerCerts?: ServerCertMaker;
  /** Sandbox only: the real time between the two /proc/stat samples of a CPU figure (100 ms; lib/testing.ts passes 10). */
  sandboxStatsSampleGapMs?: number;
  /**
   * Sandbox only: the sockets a tunnel client's session is looked for in, instead of the kernel's
   * tables (a listener on this machine's loopback plays a session). lib/testing.ts passes its own
   * table, which the stream tunnels' port checks read too.
   */
  sandboxSockets?: SocketTables;
}

/**
 * The sandbox's stand-in for public DNS: the configured domain and all its subdomains resolve
 * to the host ip; everything else does not. Both are read at query time, so onboarding can set them.
 */
export function hostIpResolver(current: () => { domain: string | null | undefined; ip: string | null | undefined }): SandboxDnsResolver {
  return (name) => {
    const { domain, ip } = current();
    if (!domain || !ip) return null;
    const n = name.toLowerCase().replace(/\.$/, '');
    return n === domain || n.endsWith(`.${domain}`) ? [ip] : null;
  };
}
