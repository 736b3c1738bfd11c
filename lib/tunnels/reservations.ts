/**
 * Subdomains and ports claimed by creates (and ports by edits) that are still running their slow
 * steps (certificate, vhost, tunnel server). Claims are checked together with the stored records in one synchronous
 * call, so two concurrent creates can never both pass the uniqueness rules.
 */
export class TunnelReservations {
  readonly #subdomains = new Set<string>();
  readonly #ports = new Set<number>();

  hasSubdomain(subdomain: string): boolean {
    return this.#subdomains.has(subdomain);
  }

  hasPort(port: number): boolean {
    return this.#ports.has(port);
  }

  /** Claims both; returns the release function (idempotent). The caller has checked they are free. */
  claim(subdomain: string, port: number): () => void {
    this.#subdomains.add(subdomain);
    this.#ports.add(port);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#subdomains.delete(subdomain);
      this.#ports.delete(port);
    };
  }

  /** Claims a port alone (an edit moving a tunnel to it); returns the release function (idempotent). */
  claimPort(port: number): () => void {
    this.#ports.add(port);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#ports.delete(port);
    };
  }
}
