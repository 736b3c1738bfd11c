import type { ApiDescription } from '../../api-description.ts';
import type { AnyRoute } from '../route.ts';
import { describeRoutes } from './describe.ts';

const INFO = { title: 'relay-panel API', version: '1' };

/**
 * Keeps the published OpenAPI document in step with the routes the app serves, built-in and
 * mounted. The document itself is built on its first read after a change (lib/api-description.ts):
 * the built-in routes are proved describable by test/unit/http/openapi.test.ts, a mount's here.
 */
export class ApiDocument {
  readonly #mounted = new Map<string, readonly AnyRoute[]>();

  constructor(
    private readonly target: ApiDescription,
    private readonly builtIn: readonly AnyRoute[],
  ) {
    this.#publish();
  }

  /**
   * A mount's routes while mounted; `undefined` when it was unmounted. A mounted route zod cannot
   * describe fails the mount, not a later read of the document.
   */
  mounted(name: string, routes: readonly AnyRoute[] | undefined): void {
    if (routes) {
      describeRoutes(routes, INFO);
      this.#mounted.set(name, routes);
    } else this.#mounted.delete(name);
    this.#publish();
  }

  #publish(): void {
    const routes = [...this.builtIn, ...[...this.#mounted.values()].flat()];
    this.target.describeWith(() => describeRoutes(routes, INFO));
  }
}
