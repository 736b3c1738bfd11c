import type { StreamClient } from './streams/client-args.ts';
import { chiselArgs, chiselAuth, chiselServerUrl, clientSessions, type ClientSession, type ClientTunnel } from './client-args.ts';

/** The spec's agent tunnel configuration, plus how to pass the tunnel credential and pin the server. */
interface AgentTunnelConfig {
  domain: string;
  chiselServerUrl: string;
  chiselArgs: string[];
  tunnels: ClientTunnel[];
  /**
   * How to run the clients: one chisel client per entry, each with its own `chiselArgs` (an extra
   * field; the spec's `chiselArgs` above hold every tunnel in one session, which a disable of any
   * one of them takes down whole: see clientSessions).
   */
  clients: ClientSession[];
  /** Environment for the client process: `AUTH=user:pass`, so chiselArgs stay exactly the spec's. */
  env: { AUTH: string };
  /**
   * The tunnel server's host key fingerprint, for the client's `--fingerprint`: an extra field,
   * so chiselArgs stay exactly the spec's; a client that adds it authenticates the server.
   */
  fingerprint: string;
  /** the TCP and UDP tunnels' sessions (an extra field, left out when the box has none, so the answer stays the spec's) */
  streams?: StreamClient[];
}

export function buildAgentConfig(domain: string, tunnels: readonly ClientTunnel[], credential: { user: string; password: string }, fingerprint: string, streams: readonly StreamClient[] = []): AgentTunnelConfig {
  return {
    domain,
    chiselServerUrl: chiselServerUrl(domain),
    chiselArgs: chiselArgs(domain, tunnels),
    tunnels: tunnels.map((t) => ({ ...t })),
    clients: clientSessions(domain, tunnels),
    env: { AUTH: chiselAuth(credential) },
    fingerprint,
    ...(streams.length ? { streams: streams.map((s) => ({ ...s, chiselArgs: [...s.chiselArgs] })) } : {}),
  };
}
