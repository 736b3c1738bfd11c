import { jsonBytes } from './json-bytes.ts';

/**
 * GET /api/openapi.json's answer as bytes. The HTTP layer writes it (lib/http/openapi/document.ts)
 * whenever the served routes change; handlers only read it.
 */
export class ApiDescription {
  #bytes = jsonBytes({});

  publish(document: unknown): void {
    this.#bytes = jsonBytes(document);
  }

  json(): Uint8Array<ArrayBuffer> {
    return this.#bytes;
  }
}
