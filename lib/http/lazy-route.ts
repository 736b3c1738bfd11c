import type { Access, AnyRoute, HttpMethod } from './route.ts';

/**
 * What a server start needs of a route before its module is loaded: enough to order and match it
 * (method, path), to open it in nginx without a certificate (access.public) and to reserve its
 * first path segment. Its schemas and handler come with `load()`, on the route's first request.
 */
export interface LazyRoute<R extends AnyRoute = AnyRoute> {
  // typed from the module's route: a kind, method or path that differs from it does not compile
  kind: R['kind'];
  method: R['method'] & HttpMethod;
  path: R['path'];
  access: Access;
  /** The route itself; its module is evaluated once, the first time this is called. */
  load(): Promise<R>;
}

/** A route as a table takes it: loaded already (tests, plugins) or loaded on first use. */
export type RouteEntry = AnyRoute | LazyRoute;

export const isLazy = (entry: RouteEntry): entry is LazyRoute => 'load' in entry;

/**
 * A route whose module `importModule` brings in (`() => import('./show.ts')`): in the server's
 * single-file bundle such a module and what only it imports are evaluated on that call, not at
 * start. The promise is kept once it succeeds, so every later call answers the same route object.
 */
export function lazyRoute<R extends AnyRoute>(entry: Omit<LazyRoute<R>, 'load'>, importModule: () => Promise<{ default: R }>): LazyRoute<R> {
  let loading: Promise<R> | undefined;
  const load = (): Promise<R> => {
    // a load that failed is not kept: the route's next request tries again rather than answering 500 until a restart
    loading ??= importModule().then((module) => module.default, (error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  return { ...entry, load };
}

/** Every entry's route, loaded (the OpenAPI document and tests that read schemas). */
export const loadedRoutes = (entries: readonly RouteEntry[]): Promise<AnyRoute[]> => Promise.all(entries.map((entry) => (isLazy(entry) ? entry.load() : entry)));
