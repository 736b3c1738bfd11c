import { jsonBytes } from '../../json-bytes.ts';
import type { AnyRoute } from '../route.ts';
import { describeRoutes } from './describe.ts';

const INFO = { title: 'relay-panel API', version: '1' };

/**
 * GET /api/openapi.json's answer: the routes the app serves now, built-in and mounted. Built once
 * per change of the table and kept as bytes.
 */
export class ApiDocument {
  #builtIn: readonly AnyRoute[] = [];
  readonly #mounted = new Map<string, readonly AnyRoute[]>();
  #bytes = jsonBytes(describeRoutes([], INFO));

  /** The built-in table (createApp, at start-up): the document is built here, so a schema it cannot describe fails the start. */
  describe(routes: readonly AnyRoute[]): void {
    this.#builtIn = routes;
    this.#rebuild();
  }

  /** A mount's routes while mounted; `undefined` when it was unmounted. */
  mounted(name: string, routes: readonly AnyRoute[] | undefined): void {
    if (routes) this.#mounted.set(name, routes);
    else this.#mounted.delete(name);
    this.#rebuild();
  }

  get routes(): readonly AnyRoute[] {
    return [...this.#builtIn, ...[...this.#mounted.values()].flat()];
  }

  json(): Uint8Array<ArrayBuffer> {
    return this.#bytes;
  }

  #rebuild(): void {
    this.#bytes = jsonBytes(describeRoutes(this.routes, INFO));
  }
}
