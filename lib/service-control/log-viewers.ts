// The live log viewers of every service: at most one channel (one follow process) per service,
// started by the first viewer and ended when the last one leaves or the panel shuts down.
import type { ViewerSocket } from './viewer-socket.ts';
import { errorMessage } from '../errors.ts';
import type { ServiceName, ServicesAdapter } from '../system/types.ts';
import { BACKLOG, closeReason, LogChannel } from './log-channel.ts';

export class LogViewers {
  readonly #channels = new Map<ServiceName, LogChannel>();
  readonly #services: ServicesAdapter;
  #shutDown = false;

  constructor(services: ServicesAdapter) {
    this.#services = services;
  }

  attach(name: ServiceName, socket: ViewerSocket): void {
    if (this.#shutDown) {
      socket.close(1001, 'Server shutting down');
      return;
    }
    let channel = this.#channels.get(name);
    if (!channel) {
      try {
        channel = this.#open(name);
      } catch (error) {
        socket.close(1011, closeReason(`Log stream failed: ${errorMessage(error)}`));
        return;
      }
    }
    channel.add(socket);
  }

  /** Open channels: one follow process each. */
  followCount(): number {
    return this.#channels.size;
  }

  /** Ends every follow; viewers get 1001. */
  close(): void {
    this.#shutDown = true;
    for (const channel of [...this.#channels.values()]) channel.close();
  }

  #open(name: ServiceName): LogChannel {
    const channel: LogChannel = new LogChannel(this.#services.follow(name, BACKLOG), () => {
      if (this.#channels.get(name) === channel) this.#channels.delete(name);
    });
    this.#channels.set(name, channel);
    return channel;
  }
}
