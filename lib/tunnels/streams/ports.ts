// Which public ports a TCP or UDP tunnel may take, and which loopback port its tunnel listener
// gets. A refusal names the port and what holds it. The rules read one snapshot (PortUse), taken
// together with the claim in one synchronous run, so two creates can never both pass.
import { badRequest } from '../../errors.ts';
import type { StreamRecord, TunnelRecord } from '../../state/schemas.ts';
import type { StreamProtocol } from '../../system/streams/types.ts';

interface PortRange {
  from: number;
  to: number;
}

/** What holds ports on the box, as far as the panel knows it and as the kernel says at that moment. */
export interface PortUse {
  range: PortRange;
  /** the box's own services: port -> what it is (the panel, nginx's 80 and 443, the portal, chisel...) */
  services: ReadonlyMap<number, string>;
  tunnels: readonly Pick<TunnelRecord, 'id' | 'port' | 'subdomain'>[];
  streams: readonly Pick<StreamRecord, 'id' | 'protocol' | 'publicPort' | 'tunnelPort'>[];
  /** ports claimed by operations still running their steps */
  claimed(port: number): boolean;
  /** listeners (TCP) and bound sockets (UDP) found right now: `host:port` of each, by protocol; null: unknown */
  live: Record<StreamProtocol, ReadonlyMap<number, string> | null>;
}

const SERVICE_NAMES: Record<string, string> = {
  http: "nginx's HTTP port",
  https: "nginx's HTTPS port",
  ipPanel: "the IP panel's port",
  panel: "the panel's loopback listener",
  tunnelServer: "the tunnel server's port",
  authPortal: "the authentication portal's port",
};

/** The box's own ports with what each one is, from the configuration. */
export function servicePorts(config: { listen: { port: number }; system: { ports: Record<string, number>; nginx: { trafficPort: number | null } } }): Map<number, string> {
  const ports = new Map<number, string>();
  for (const [key, port] of Object.entries(config.system.ports)) ports.set(port, SERVICE_NAMES[key] ?? `the relay's ${key} port`);
  ports.set(config.listen.port, "the panel's loopback listener");
  if (config.system.nginx.trafficPort !== null) ports.set(config.system.nginx.trafficPort, "the panel's traffic log port");
  // ssh: an operator's way in, never a tunnel's
  ports.set(22, 'SSH');
  return ports;
}

/** What holds `port` for the box's loopback or its public addresses, or null when nothing the panel knows of does. */
function heldBy(use: PortUse, port: number, exceptId: string | undefined, protocol: StreamProtocol | null): string | null {
  const service = use.services.get(port);
  if (service) return service;
  const tunnel = use.tunnels.find((t) => t.port === port);
  if (tunnel) return `the HTTP tunnel ${tunnel.subdomain}`;
  for (const s of use.streams) {
    if (s.id === exceptId) continue;
    // a TCP and a UDP server may share a number (DNS does); a tunnel listener may not be shared at all
    if (s.publicPort === port && (protocol === null || s.protocol === protocol)) return `the ${s.protocol.toUpperCase()} tunnel on public port ${s.publicPort}`;
    if (s.tunnelPort === port) return `the tunnel listener of the ${s.protocol.toUpperCase()} tunnel on public port ${s.publicPort}`;
  }
  if (use.claimed(port)) return 'another tunnel being created';
  return null;
}

/** Throws the 400 that names why `port` cannot be a stream tunnel's public port. */
export function checkPublicPort(use: PortUse, protocol: StreamProtocol, port: number, options: { exceptId?: string; onField?: boolean } = {}): void {
  const refuse = (message: string) => badRequest(message, options.onField ? { issues: [{ path: 'publicPort', message }] } : undefined);
  const { from, to } = use.range;
  if (port < from || port > to) throw refuse(`Public port ${port} is outside the range for TCP and UDP tunnels (${from}-${to})`);
  const holder = heldBy(use, port, options.exceptId, protocol);
  if (holder) throw refuse(`Public port ${port} is already in use by ${holder}`);
  const live = use.live[protocol]?.get(port);
  if (live) throw refuse(`Public port ${port} is already in use: a program listens on ${live} (${protocol.toUpperCase()})`);
}

/**
 * A loopback port for the tunnel's reverse listener: above the public range first, then below it
 * (never under 1024), then the range's own top when it leaves nothing outside; free of everything
 * the panel knows and of every TCP and UDP socket now.
 */
export function pickTunnelPort(use: PortUse, avoid: ReadonlySet<number> = new Set()): number {
  const free = (p: number) => !avoid.has(p) && heldBy(use, p, undefined, null) === null && !use.live.tcp?.has(p) && !use.live.udp?.has(p);
  for (let p = use.range.to + 1; p <= 65535; p++) if (free(p)) return p;
  for (let p = use.range.from - 1; p >= 1024; p--) if (free(p)) return p;
  // a range that leaves nothing outside it: its top, which a public port is given last
  for (let p = Math.min(use.range.to, 65535); p >= Math.max(use.range.from, 1024); p--) if (free(p)) return p;
  throw badRequest('No loopback port is free for the tunnel listener');
}

/** `host:port` per port from a listener list (the first one seen). */
export function byPort(listeners: readonly { host: string; port: number }[] | null): Map<number, string> | null {
  if (listeners === null) return null;
  const map = new Map<number, string>();
  for (const { host, port } of listeners) if (!map.has(port)) map.set(port, `${host}:${port}`);
  return map;
}
