// The WebSocket as routes and the chain see it; the edge that accepted the upgrade supplies it.

/** What a WebSocket route may do with its socket; `ws`'s WebSocket (and the browser's shape) fit it. */
export interface RouteSocket {
  readonly readyState: number;
  /** Bytes queued but not yet sent: a route drops a reader that falls too far behind. */
  readonly bufferedAmount: number;
  send(data: string | Uint8Array, options?: { binary?: boolean }): void;
  close(code?: number, reason?: string): void;
  /** Ends the connection at once, without a closing handshake. */
  terminate(): void;
  on(event: 'message', listener: (data: { toString(): string }, isBinary: boolean) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'close', listener: () => void): unknown;
}

/** An upgrade waiting for the chain's verdict; the edge that received it knows how to finish it. */
export interface PendingUpgrade {
  accept(onSocket: (socket: RouteSocket) => void): void;
}
