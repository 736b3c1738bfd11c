import { stackHosts } from '../stack-hosts.ts';
import type { TunnelRecord } from '../state/schemas.ts';

// What a tunnel client runs, shared by the agent configuration and the macOS plist.

export interface ClientTunnel {
  port: number;
  subdomain: string;
}

/** Enabled tunnels only, by port, so the argument list is stable as tunnels come and go. */
export function clientTunnels(tunnels: readonly TunnelRecord[]): ClientTunnel[] {
  return tunnels
    .filter((t) => t.enabled)
    .map((t) => ({ port: t.port, subdomain: t.subdomain }))
    .sort((a, b) => a.port - b.port);
}

export function chiselServerUrl(domain: string): string {
  return `https://${stackHosts(domain).tunnel}:443`;
}

/**
 * The spec's exact argument list. The credential is not in it: clients pass it in the AUTH
 * environment variable, which chisel reads when `--auth` is absent.
 */
export function chiselArgs(domain: string, tunnels: readonly ClientTunnel[]): string[] {
  return ['client', '--tls-skip-verify', chiselServerUrl(domain), ...tunnels.map(({ port }) => `R:127.0.0.1:${port}:127.0.0.1:${port}`)];
}

/** One chisel client session: a single tunnel and the spec's argument list for it alone. */
export interface ClientSession extends ClientTunnel {
  chiselArgs: string[];
}

/**
 * One session per enabled tunnel. chisel 1.9 checks a session's remotes all at once when it opens
 * and refuses the whole session if any one is not granted, so a client holding several tunnels
 * loses all of them once one is disabled and the server restarted to free its port. A session
 * per tunnel is refused alone.
 */
export function clientSessions(domain: string, tunnels: readonly ClientTunnel[]): ClientSession[] {
  return tunnels.map((t) => ({ port: t.port, subdomain: t.subdomain, chiselArgs: chiselArgs(domain, [t]) }));
}

/** The value of chisel's AUTH variable. */
export function chiselAuth(credential: { user: string; password: string }): string {
  return `${credential.user}:${credential.password}`;
}
