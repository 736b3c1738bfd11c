/** Fixed-window counters per key, kept in memory: a restart forgiving a minute's count is harmless. */
export class FixedWindowRateLimiter {
  readonly #windows = new Map<string, { startedAt: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one request; false once the key has used up its window. */
  take(key: string, now: number): boolean {
    const window = this.#windows.get(key);
    if (!window || now - window.startedAt >= this.windowMs) {
      this.#windows.set(key, { startedAt: now, count: 1 });
      return true;
    }
    window.count++;
    return window.count <= this.limit;
  }

  /** How long until the key's window ends and it may try again (0 when it has none open). */
  retryInMs(key: string, now: number): number {
    const window = this.#windows.get(key);
    return window ? Math.max(0, window.startedAt + this.windowMs - now) : 0;
  }

  /** Forgets finished windows so the map does not grow with every agent ever seen. */
  prune(now: number): void {
    for (const [key, window] of this.#windows) if (now - window.startedAt >= this.windowMs) this.#windows.delete(key);
  }

  get size(): number {
    return this.#windows.size;
  }
}
