// The tunnel server (chisel) adapter as the domain services see it; host.ts drives the real program, sandbox.ts plays it.

export interface TunnelCredential {
  user: string;
  password: string;
}

export interface TunnelServerAdapter {
  /** Pinned, checksummed install plus the service unit; idempotent. */
  install(): Promise<void>;
  /**
   * Rewrites the authfile so only these reverse ports are allowed (chisel reloads it); restarts the
   * tunnel server only when a revoked port's client session is still connected (revoked-sessions.ts).
   */
  setAllowedPorts(ports: number[]): Promise<void>;
  allowedPorts(): Promise<number[]>;
  /**
   * Which of these ports have a client connected: while a client's session is up, chisel listens on
   * 127.0.0.1:<port> for each of its reverse remotes (it has no status API), a UDP socket for a
   * `/udp` remote (a UDP stream tunnel's; `protocol` says which to look for, TCP by default).
   */
  connectedPorts(ports: readonly number[], protocol?: 'tcp' | 'udp'): Promise<Set<number>>;
  /** The client credential, created once; clients take it from the AUTH environment variable. */
  credential(): Promise<TunnelCredential>;
  /**
   * The host key's fingerprint as chisel prints it, which clients pin with --fingerprint, from
   * memory kept while a watch on the key's directory sees no change (a key put back from a backup
   * counts as soon as the watch tells, within milliseconds; host-key-watch.ts). On a box the
   * installer makes the key and this never does: a missing key is an error. The sandbox, which has
   * no installer, makes it on first use.
   */
  fingerprint(): Promise<string>;
}
