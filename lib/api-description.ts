/**
 * GET /api/openapi.json's answer as bytes. The HTTP layer writes it (lib/http/openapi/document.ts)
 * whenever the served routes change; handlers only read it.
 */
export class ApiDescription {
  #bytes: Uint8Array<ArrayBuffer> = new TextEncoder().encode('{}');

  /** The serialized document; the caller keeps it unchanged (it may be shared between apps). */
  publish(bytes: Uint8Array<ArrayBuffer>): void {
    this.#bytes = bytes;
  }

  json(): Uint8Array<ArrayBuffer> {
    return this.#bytes;
  }
}
