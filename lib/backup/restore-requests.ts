/**
 * How a restore uploaded to the running panel reaches the process that can stop and start it
 * (lib/cli.ts). A panel nobody listens for (an app built by the testing kit, or another runtime)
 * cannot restore itself, and says so instead of replacing files under its own feet.
 */
export class RestoreRequests {
  #listener: ((archive: string) => void) | null = null;
  #next = '';

  /**
   * The process's server loop: called with the verified archive's file; it stops the server (which
   * lets the answer go first) before anything is replaced. `next` tells the admin what happens then.
   */
  listen(listener: (archive: string) => void, next: string): void {
    this.#listener = listener;
    this.#next = next;
  }

  get next(): string {
    return this.#next;
  }

  get supported(): boolean {
    return this.#listener !== null;
  }

  request(archive: string): void {
    this.#listener?.(archive);
  }
}
