import type { Runtime } from '../runtime.ts';
import type { RequestObserver } from './observer.ts';
import { perRouteList } from './per-route-list.ts';
import type { AnyRoute } from './route.ts';
import { routeTable, type RouteTable } from './router.ts';
import type { RequestState } from './state.ts';

const MOUNT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * Route tables added while the server runs, one per name under /api/<name>/ (plugins). itty only
 * appends routes, after the fallbacks, so mounted tables are looked up by name and dispatched here.
 */
export class Mounts {
  private readonly tables = new Map<string, RouteTable>();

  constructor(
    private readonly services: Runtime,
    /** First path segments under /api/ taken by the built-in routes: a mount cannot shadow them. */
    private readonly reserved: ReadonlySet<string>,
    private readonly observer?: RequestObserver,
  ) {}

  mount(name: string, routes: readonly AnyRoute[]): void {
    if (!MOUNT_NAME.test(name)) throw new Error(`mount name '${name}' must be lower-case letters, digits and dashes`);
    if (this.reserved.has(name)) throw new Error(`mount name '${name}' is taken by a built-in route`);
    if (this.tables.has(name)) throw new Error(`'${name}' is already mounted`);
    const prefix = `/api/${name}`;
    const outside = routes.find((route) => route.path !== prefix && !route.path.startsWith(`${prefix}/`));
    if (outside) throw new Error(`route ${outside.method} ${outside.path} is outside ${prefix}/`);
    this.tables.set(name, routeTable(routes, this.services, undefined, this.observer));
  }

  /** True when something was mounted under that name. */
  unmount(name: string): boolean {
    return this.tables.delete(name);
  }

  /** The mounted table's answer for /api/<name>/..., or undefined. */
  async fetch(request: Request, pathname: string, state: RequestState): Promise<Response | undefined> {
    if (this.tables.size === 0 || !pathname.startsWith('/api/')) return undefined;
    const end = pathname.indexOf('/', 5);
    const table = this.tables.get(end < 0 ? pathname.slice(5) : pathname.slice(5, end));
    return table?.fetch(request, state);
  }
}

/** `tunnels` for /api/tunnels/:id; the built-in routes' first segments (once per list: per-route-list.ts). */
export const firstSegments = perRouteList((routes): ReadonlySet<string> =>
  new Set(routes.filter((r) => r.path.startsWith('/api/')).map((r) => r.path.slice(5).split('/')[0]!)));
