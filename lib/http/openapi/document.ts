import type { ApiDescription } from '../../api-description.ts';
import { jsonBytes } from '../../json-bytes.ts';
import { isLazy, loadedRoutes, type RouteEntry } from '../lazy-route.ts';
import type { AnyRoute } from '../route.ts';
import { describeRoutes } from './describe.ts';

const INFO = { title: 'relay-panel API', version: '1' };

type Document = Uint8Array<ArrayBuffer>;

// A route table is a module constant, shared by every app a process builds (the unit suites build
// hundreds): its document is described and serialized once.
const builtInDocuments = new WeakMap<readonly RouteEntry[], Document | Promise<Document>>();

function describe(routes: readonly AnyRoute[]): Document {
  return jsonBytes(describeRoutes(routes, INFO));
}

/** A table of loaded routes is described at once; a start's table loads every route's module first (the document reads their schemas). */
function describeEntries(entries: readonly RouteEntry[], mounted: readonly AnyRoute[]): Document | Promise<Document> {
  if (!entries.some(isLazy)) return describe([...(entries as readonly AnyRoute[]), ...mounted]);
  return loadedRoutes(entries).then((routes) => describe([...routes, ...mounted]));
}

function describeBuiltIn(routes: readonly RouteEntry[]): Document | Promise<Document> {
  let bytes = builtInDocuments.get(routes);
  if (!bytes) {
    bytes = describeEntries(routes, []);
    builtInDocuments.set(routes, bytes);
    // a route module that failed to load is not kept as the document: the next read tries again
    if (bytes instanceof Promise) bytes.catch(() => builtInDocuments.delete(routes));
  }
  return bytes;
}

/**
 * Keeps the published OpenAPI document in step with the routes the app serves, built-in and
 * mounted. The document itself is built on its first read after a change (lib/api-description.ts):
 * the built-in routes are proved describable by test/unit/http/openapi.test.ts, a mount's here.
 */
export class ApiDocument {
  readonly #mounted = new Map<string, readonly AnyRoute[]>();

  constructor(
    private readonly target: ApiDescription,
    private readonly builtIn: readonly RouteEntry[],
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
    const mounted = [...this.#mounted.values()].flat();
    this.target.describeWith(() => (mounted.length === 0 ? describeBuiltIn(this.builtIn) : describeEntries(this.builtIn, mounted)));
  }
}
