// doctor's look at the TCP and UDP tunnels: every stream server file should have nginx listening on
// its public port (a reload that could not bind leaves none), and the operator's firewall must let
// those ports through, so doctor lists them.
import { readTcpListeners, readUdpSockets } from '../system/common/tcp-listeners.ts';
import type { TcpListener } from '../system/common/proc-net.ts';
import { streamsDirOf, type SystemConfig } from '../system/config.ts';
import { listStreamFiles } from '../system/streams/store.ts';

export interface StreamFinding {
  ok: boolean;
  message: string;
  fix?: string;
}

const NAME = /^relay-stream-(tcp|udp)-(\d+)\.conf$/;

export async function streamFindings(
  system: SystemConfig,
  sockets: { tcp(): Promise<TcpListener[] | null>; udp(): Promise<TcpListener[] | null> } = { tcp: () => readTcpListeners(), udp: () => readUdpSockets() },
): Promise<StreamFinding> {
  const servers = (await listStreamFiles(streamsDirOf(system))).flatMap((name) => {
    const m = NAME.exec(name);
    return m ? [{ protocol: m[1] as 'tcp' | 'udp', port: Number(m[2]) }] : [];
  });
  if (servers.length === 0) return { ok: true, message: 'no TCP or UDP tunnel is enabled; the firewall needs no port for them' };
  const [tcp, udp] = await Promise.all([sockets.tcp(), sockets.udp()]);
  const held = { tcp: new Set(tcp?.map((l) => l.port)), udp: new Set(udp?.map((l) => l.port)) };
  const known = { tcp: tcp !== null, udp: udp !== null };
  const ports = servers.map((s) => `${s.port}/${s.protocol}`);
  const missing = servers.filter((s) => known[s.protocol] && !held[s.protocol].has(s.port)).map((s) => `${s.protocol.toUpperCase()} ${s.port}`);
  const through = `the firewall must let through ${ports.join(', ')}`;
  if (missing.length) {
    return {
      ok: false,
      message: `no listener on the public port of the stream tunnel${missing.length === 1 ? '' : 's'} ${missing.join(', ')}; ${through}`,
      fix: `another program may hold the port (ss -lntup), or nginx's stream module is not loaded: apt-get install libnginx-mod-stream, relay-panel install, then systemctl reload nginx`,
    };
  }
  return { ok: true, message: `nginx listens for every TCP and UDP tunnel; ${through} (ufw allow <port>/<protocol>)` };
}
