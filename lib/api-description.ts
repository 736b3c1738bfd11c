/**
 * GET /api/openapi.json's answer as bytes. The HTTP layer hands over how to build the document
 * (lib/http/openapi/document.ts) whenever the served routes change; it is built on the first read
 * after that, not at start-up (about 40 ms of a cold start), and kept until the next change.
 */
export class ApiDescription {
  #build: () => Uint8Array<ArrayBuffer> = () => new TextEncoder().encode('{}');
  #bytes: Uint8Array<ArrayBuffer> | undefined;

  /** The routes changed: the next read builds the serialized document with `build` (the bytes may be shared between apps: kept unchanged). */
  describeWith(build: () => Uint8Array<ArrayBuffer>): void {
    this.#build = build;
    this.#bytes = undefined;
  }

  json(): Uint8Array<ArrayBuffer> {
    return (this.#bytes ??= this.#build());
  }
}
