// A socket table kept in memory, in place of the kernel's: what the testing kit's sandbox reads for
// a tunnel client's session and for the ports programs hold, so a unit test neither reads this
// machine's tables (kernel time that grows with every socket on it) nor sees another program's.
import type { SocketTables } from '../common/tcp-listeners.ts';
import type { TcpListener } from '../common/proc-net.ts';

export type SocketProtocol = 'tcp' | 'udp';

export class SocketTable implements SocketTables {
  readonly #held: Record<SocketProtocol, TcpListener[]> = { tcp: [], udp: [] };

  /** A listener (TCP) or bound socket (UDP) on `host` (as a URL writes it); the returned function lets it go. */
  hold(protocol: SocketProtocol, port: number, host = '127.0.0.1'): () => void {
    const entry: TcpListener = { host, port };
    this.#held[protocol].push(entry);
    return () => {
      const list = this.#held[protocol];
      const at = list.indexOf(entry);
      if (at >= 0) list.splice(at, 1);
    };
  }

  tcp(): Promise<TcpListener[]> {
    return Promise.resolve(this.#held.tcp.map((l) => ({ ...l })));
  }

  udp(): Promise<TcpListener[]> {
    return Promise.resolve(this.#held.udp.map((l) => ({ ...l })));
  }
}
