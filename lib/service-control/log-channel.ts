// One service's live log: ONE follow of its journal, fanned out to every viewer. Each line is
// serialized once; the last BACKLOG lines are kept so a viewer joining later gets the same backlog
// as the first one. A viewer whose socket has more than MAX_BUFFERED bytes unsent is dropped, so a
// slow reader never holds memory without bound and never slows the others.
import { SOCKET_OPEN, type ViewerSocket } from './viewer-socket.ts';
import { errorMessage } from '../errors.ts';
import type { LogFollow, LogLine } from '../system/types.ts';

export const BACKLOG = 100;
export const MAX_BUFFERED = 256 * 1024;
/** ViewerSocket close reasons are at most 123 bytes. */
const REASON_MAX = 120;

export const closeReason = (text: string): string => (Buffer.byteLength(text) <= REASON_MAX ? text : Buffer.from(text).subarray(0, REASON_MAX).toString('utf8').replace(/\uFFFD$/, ''));

export class LogChannel {
  readonly #viewers = new Set<ViewerSocket>();
  readonly #recent: Buffer[] = [];
  readonly #follow: LogFollow;
  readonly #onClosed: () => void;
  #closed = false;

  /** `onClosed` runs once, when the last viewer left, the follow ended or `close` was called. */
  constructor(follow: LogFollow, onClosed: () => void) {
    this.#follow = follow;
    this.#onClosed = onClosed;
    void this.#pump();
  }

  get viewers(): number {
    return this.#viewers.size;
  }

  /** Sends the backlog, then every new line, until the socket closes, errors or falls behind. */
  add(socket: ViewerSocket): void {
    if (this.#closed) {
      socket.close(1001, 'Log stream closed');
      return;
    }
    this.#viewers.add(socket);
    const leave = () => this.#leave(socket);
    socket.once('close', leave);
    // `on`, not `once`: an 'error' with no listener left would be thrown
    socket.on('error', leave);
    for (const data of this.#recent) if (!this.#deliver(socket, data)) return;
  }

  /** Ends the follow and closes every viewer with `code` and `reason`. */
  close(code = 1001, reason = 'Server shutting down'): void {
    if (this.#closed) return;
    const viewers = [...this.#viewers];
    this.#viewers.clear();
    this.#end();
    for (const socket of viewers) socket.close(code, closeReason(reason));
  }

  async #pump(): Promise<void> {
    try {
      for await (const line of this.#follow) this.#broadcast(line);
      this.close(1000, 'Log stream ended');
    } catch (error) {
      this.close(1011, `Log stream failed: ${errorMessage(error)}`);
    }
  }

  #broadcast(line: LogLine): void {
    const data = Buffer.from(JSON.stringify({ timestamp: line.timestamp, message: line.message }));
    this.#recent.push(data);
    if (this.#recent.length > BACKLOG) this.#recent.shift();
    for (const socket of this.#viewers) this.#deliver(socket, data);
  }

  /** Sends one line; a viewer that is too far behind is dropped instead (false). */
  #deliver(socket: ViewerSocket, data: Buffer): boolean {
    if (socket.readyState !== SOCKET_OPEN) return true;
    if (socket.bufferedAmount + data.length > MAX_BUFFERED) {
      // terminate, not close: a close frame would queue behind the unsent bytes and keep them
      this.#leave(socket);
      socket.terminate();
      return false;
    }
    socket.send(data, { binary: false });
    return true;
  }

  #leave(socket: ViewerSocket): void {
    // the last viewer is gone: end the follow (its process) now
    if (this.#viewers.delete(socket) && this.#viewers.size === 0) this.#end();
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#follow.close();
    this.#recent.length = 0;
    this.#onClosed();
  }
}
