type Document = Uint8Array<ArrayBuffer>;

/**
 * GET /api/openapi.json's answer as bytes. The HTTP layer hands over how to build the document
 * (lib/http/openapi/document.ts) whenever the served routes change; it is built on the first read
 * after that, not at start-up (about 40 ms of a cold start), and kept until the next change. The
 * build may wait: a server's routes load their modules on first use, and the document reads every
 * route's schemas.
 */
export class ApiDescription {
  #build: () => Document | Promise<Document> = () => new TextEncoder().encode('{}');
  #bytes: Document | Promise<Document> | undefined;

  /** The routes changed: the next read builds the serialized document with `build` (the bytes may be shared between apps: kept unchanged). */
  describeWith(build: () => Document | Promise<Document>): void {
    this.#build = build;
    this.#bytes = undefined;
  }

  json(): Document | Promise<Document> {
    if (this.#bytes === undefined) {
      const bytes = (this.#bytes = this.#build());
      // a build that failed (a route module that did not load) is not kept: the next read builds again
      if (bytes instanceof Promise) bytes.catch(() => this.#bytes === bytes && (this.#bytes = undefined));
    }
    return this.#bytes;
  }
}
