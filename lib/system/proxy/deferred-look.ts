// The start's look at the tunnel vhosts it took on their stamps' word (lib/host-state/reconcile.ts),
// left for later. It runs once: when asked (a second after the panel listens), or before the
// adapter's next write, whichever comes first, since that write's nginx test reads every file and a
// file broken by hand while the panel was down would fail it. Dropped (a stop) before it started,
// it never runs.
export class DeferredLook {
  #waiting: (() => Promise<unknown>) | null = null;
  #running: Promise<unknown> | null = null;

  defer(look: () => Promise<unknown>): void {
    this.#waiting = look;
  }

  /** Starts it unless it started; resolves once it is over (at once when there is none). */
  now(): Promise<unknown> {
    const look = this.#waiting;
    if (look) {
      this.#waiting = null;
      // a look that throws at once rejects, as a later failure would
      this.#running = Promise.resolve().then(look).finally(() => (this.#running = null));
    }
    return this.#running ?? Promise.resolve();
  }

  /** Forgets it when it has not started; answers it when it has, for a stop to wait on. */
  drop(): Promise<unknown> {
    this.#waiting = null;
    return this.#running ?? Promise.resolve();
  }

  /**
   * `write` once the look is over, started now when it waits; at once when there is none. The
   * look's own write (its refresh of the files touched by hand) must not come here: it would wait
   * for itself.
   */
  before<T>(write: () => Promise<T>): Promise<T> {
    if (!this.#waiting && !this.#running) return write();
    return this.now().then(write, write);
  }
}
