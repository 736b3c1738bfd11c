/**
 * Names and FQDNs claimed by creates still running their slow steps. Checked together with the
 * stored records in one synchronous call, so two concurrent creates cannot both pass.
 */
export class SiteReservations {
  readonly #names = new Set<string>();
  readonly #fqdns = new Set<string>();

  holds(name: string, fqdn: string): { name: boolean; fqdn: boolean } {
    return { name: this.#names.has(name), fqdn: this.#fqdns.has(fqdn) };
  }

  /** Claims both; returns the (idempotent) release. The caller has checked they are free. */
  claim(name: string, fqdn: string): () => void {
    this.#names.add(name);
    this.#fqdns.add(fqdn);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#names.delete(name);
      this.#fqdns.delete(fqdn);
    };
  }
}
