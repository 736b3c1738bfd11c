/** What a log viewer's WebSocket must offer; the edge's sockets (ws) fit it. */
export interface ViewerSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string | Uint8Array, options?: { binary?: boolean }): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'close', listener: () => void): unknown;
}

/** WebSocket's readyState for an open connection. */
export const SOCKET_OPEN = 1;
