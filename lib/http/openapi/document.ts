import type { ApiDescription } from '../../api-description.ts';
import type { AnyRoute } from '../route.ts';
import { describeRoutes } from './describe.ts';

const INFO = { title: 'relay-panel API', version: '1' };

/**
 * Keeps the published OpenAPI document in step with the routes the app serves, built-in and
 * mounted: built once per change of the table, at start-up and on each mount and unmount.
 */
export class ApiDocument {
  readonly #mounted = new Map<string, readonly AnyRoute[]>();

  /** Built here, at start-up: a schema it cannot describe fails the start. */
  constructor(
    private readonly target: ApiDescription,
    private readonly builtIn: readonly AnyRoute[],
  ) {
    this.#publish();
  }

  /** A mount's routes while mounted; `undefined` when it was unmounted. */
  mounted(name: string, routes: readonly AnyRoute[] | undefined): void {
    if (routes) this.#mounted.set(name, routes);
    else this.#mounted.delete(name);
    this.#publish();
  }

  #publish(): void {
    this.target.publish(describeRoutes([...this.builtIn, ...[...this.#mounted.values()].flat()], INFO));
  }
}
