// The four services: status, actions (one at a time per service) and live logs.
import type { ViewerSocket } from './viewer-socket.ts';
import { AppError, badRequest } from '../errors.ts';
import { KeyedLock } from '../keyed-lock.ts';
import { SERVICE_NAMES, SystemError, type ServiceAction, type ServiceName, type ServiceStatus, type ServicesAdapter } from '../system/types.ts';
import { LogViewers } from './log-viewers.ts';

/** The panel is served by itself behind the proxy: stopping either through the API cuts off the caller, and the panel cannot start them again. */
export const STOP_REFUSED_SERVICES: readonly ServiceName[] = ['panel', 'proxy'];
export const stopRefused = (name: ServiceName) => `The ${name} service cannot be stopped through the API: it would end the session serving this request`;
export const PANEL_STOP_REFUSED = stopRefused('panel');

export class ServiceControl {
  readonly #services: ServicesAdapter;
  readonly #locks = new KeyedLock();
  readonly #viewers: LogViewers;
  #listing: Promise<ServiceStatus[]> | null = null;

  constructor(services: ServicesAdapter) {
    this.#services = services;
    this.#viewers = new LogViewers(services);
  }

  /** The four services in the spec's order; concurrent callers share one round of status calls. */
  list(): Promise<ServiceStatus[]> {
    this.#listing ??= Promise.all(SERVICE_NAMES.map((name) => this.#status(name))).finally(() => {
      this.#listing = null;
    });
    return this.#listing;
  }

  /** Runs the action after any earlier one on the same service, and answers the state it left. */
  act(name: ServiceName, action: ServiceAction): Promise<ServiceStatus> {
    if (action === 'stop' && STOP_REFUSED_SERVICES.includes(name)) return Promise.reject(badRequest(stopRefused(name)));
    return this.#locks.run(name, async () => {
      try {
        await this.#services.control(name, action);
      } catch (error) {
        if (error instanceof SystemError) throw new AppError(500, `Failed to ${action} ${name}`, error.details);
        throw error;
      }
      return this.#status(name);
    });
  }

  attachLogViewer(name: ServiceName, socket: ViewerSocket): void {
    this.#viewers.attach(name, socket);
  }

  /** Live follow processes (one per service that has viewers). */
  followCount(): number {
    return this.#viewers.followCount();
  }

  close(): void {
    this.#viewers.close();
  }

  /** What the host says; a status that cannot be read is `unknown`, not a failed listing. */
  #status(name: ServiceName): Promise<ServiceStatus> {
    return this.#services.status(name).catch(() => ({ name, status: 'unknown' as const, uptime: '' }));
  }
}
