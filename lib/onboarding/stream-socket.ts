/** What the progress stream needs of a WebSocket; the HTTP layer's route sockets fit it. */
export interface StreamSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  on(event: 'close' | 'error', listener: () => void): unknown;
}

/** `readyState` of an open socket (the WebSocket standard's OPEN). */
export const STREAM_SOCKET_OPEN = 1;
