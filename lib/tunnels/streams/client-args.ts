import type { StreamRecord } from '../../state/schemas.ts';
import { chiselServerUrl } from '../client-args.ts';

// What a tunnel client runs for a TCP or UDP tunnel: one chisel session per tunnel, as for an HTTP
// tunnel (a session is refused whole when any of its remotes is not granted).

export interface StreamClient {
  id: string;
  protocol: StreamRecord['protocol'];
  publicPort: number;
  port: number;
  /** chisel's reverse remote: the box's loopback listener to the client machine's port, `/udp` for UDP */
  remote: string;
  chiselArgs: string[];
}

function streamRemote(stream: Pick<StreamRecord, 'protocol' | 'tunnelPort' | 'port'>): string {
  return `R:127.0.0.1:${stream.tunnelPort}:127.0.0.1:${stream.port}${stream.protocol === 'udp' ? '/udp' : ''}`;
}

/** The enabled TCP and UDP tunnels, by public port then protocol, so the list is stable as tunnels come and go. */
export function streamClients(domain: string, streams: readonly StreamRecord[]): StreamClient[] {
  return streams
    .filter((s) => s.enabled)
    .sort((a, b) => a.publicPort - b.publicPort || a.protocol.localeCompare(b.protocol))
    .map((s) => {
      const remote = streamRemote(s);
      return { id: s.id, protocol: s.protocol, publicPort: s.publicPort, port: s.port, remote, chiselArgs: ['client', '--tls-skip-verify', chiselServerUrl(domain), remote] };
    });
}
