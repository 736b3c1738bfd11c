// The stream proxy (nginx's stream module) as the domain services see it: one server per enabled
// TCP or UDP tunnel, in a directory the main configuration's `stream {}` block includes.

export type StreamProtocol = 'tcp' | 'udp';

/** What a stream server is for; the adapter renders it with its own listen address and traffic port. */
export interface StreamSpec {
  protocol: StreamProtocol;
  /** where nginx listens on the box, on every address of `nginx.listenAddress` */
  publicPort: number;
  /** the tunnel's reverse listener on the box's loopback (chisel's `R:127.0.0.1:<port>`) */
  tunnelPort: number;
  /** source addresses or networks let through; empty lets every source through */
  allow: readonly string[];
  /** a PROXY protocol header in front of each connection towards the client machine */
  proxyProtocol: boolean;
}

export type StreamChange = { op: 'put'; spec: StreamSpec } | { op: 'remove'; name: string };

export interface StreamProxyAdapter {
  /**
   * Writes and removes stream servers, tests the whole configuration and reloads; on a failed test
   * or reload every touched file is put back as it was and a SystemError carries nginx's words.
   */
  apply(changes: StreamChange[]): Promise<void>;
  /** The stream servers written, by file name. */
  list(): Promise<string[]>;
}
