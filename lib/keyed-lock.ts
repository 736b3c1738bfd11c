// Serial execution of async tasks, shared by lib/system (file rewrites, openssl's index) and
// lib/tunnels (toggles and deletes of one tunnel).

/**
 * Runs tasks with the same key one after another (toggles and deletes of one tunnel), while tasks
 * with different keys run concurrently. The chain entry is dropped once its last task settles.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /**
   * Runs `task` holding every key at once. Keys are taken in sorted order, so two such calls over
   * overlapping keys cannot each hold one the other waits for.
   */
  runAll<T>(keys: Iterable<string>, task: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const hold = (at: number): Promise<T> => (at === sorted.length ? task() : this.run(sorted[at]!, () => hold(at + 1)));
    return hold(0);
  }
}

/** Runs tasks one after another, a failure not blocking the next: one key of a KeyedLock. */
export function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  const lock = new KeyedLock();
  return <T>(task: () => Promise<T>): Promise<T> => lock.run('', task);
}
