// A change of the whole (the certificate mode's switch) against the many small changes it decides
// about (a tunnel's create, edit, toggle, delete or access change; a site's create): the small ones
// run beside each other, the whole one alone. A small change renders its vhost in the mode of the
// moment, so one that ran across a switch would write the old mode's vhost after the switch had
// rewritten the others (a route with no shared server left, a vhost naming a deleted lineage).

/**
 * `shared` tasks run concurrently; an `exclusive` task waits for those under way, and the shared
 * tasks asked after it wait for it (so a stream of small changes cannot starve a switch).
 */
export class SharedGate {
  /** the last exclusive task asked, settled or not */
  #exclusive: Promise<unknown> = Promise.resolve();
  readonly #shared = new Set<Promise<unknown>>();

  shared<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#exclusive.then(task);
    const settled = result.catch(() => undefined);
    this.#shared.add(settled);
    void settled.then(() => this.#shared.delete(settled));
    return result;
  }

  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const before = [this.#exclusive, ...this.#shared];
    const result = Promise.all(before).then(task);
    this.#exclusive = result.catch(() => undefined);
    return result;
  }
}
