import type { Role } from '../auth/identity.ts';
import type { LoadedPlugin, PluginHost } from '../plugins/host.ts';
import type { App } from './app.ts';
import type { RouteEntry } from './lazy-route.ts';
import { firstSegments } from './mounts.ts';
import { Response } from './responses.ts';
import { ADMIN_ONLY, route, type Access, type AnyRoute, type HttpMethod, type HttpRoute } from './route.ts';

const METHODS: ReadonlySet<string> = new Set<HttpMethod>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const ROLES: ReadonlySet<string> = new Set<Role>(['admin', 'agent']);

/** The plugin service's view of the app: mounts what a plugin's server module exports. */
export function pluginHost(app: Pick<App, 'mount' | 'unmount'>, builtIn: readonly RouteEntry[]): PluginHost {
  return {
    reservedNames: firstSegments(builtIn),
    mount: (plugin) => app.mount(plugin.name, pluginRoutes(plugin)),
    unmount: (name) => app.unmount(name),
  };
}

/**
 * The routes a plugin module exports (`export const routes = [...]` or a default array), checked
 * like handlers/ routes, plus its panel bundle at /api/<name>/panel.js. Throws an Error naming
 * the first problem.
 */
export function pluginRoutes(plugin: LoadedPlugin): AnyRoute[] {
  const exported = exportedRoutes(plugin.module);
  const routes = exported.map((candidate, at) => checkRoute(candidate, at, plugin));
  return plugin.panel ? [panelRoute(plugin.name, plugin.panel), ...routes] : routes;
}

function exportedRoutes(module: unknown): unknown[] {
  const namespace = (module ?? {}) as { routes?: unknown; default?: unknown };
  const routes = namespace.routes ?? namespace.default;
  if (!Array.isArray(routes)) throw new Error('the server module must export `routes` (or a default export), an array of routes');
  return routes;
}

interface RouteLike {
  kind?: unknown;
  method?: unknown;
  path?: unknown;
  access?: unknown;
  params?: unknown;
  query?: unknown;
  body?: unknown;
  handle?: unknown;
}

function checkRoute(candidate: unknown, at: number, plugin: LoadedPlugin): HttpRoute {
  const where = `route ${at}`;
  if (typeof candidate !== 'object' || candidate === null) throw new Error(`${where} is not an object`);
  const r = candidate as RouteLike;
  if (r.kind !== undefined && r.kind !== 'http') throw new Error(`${where}: only HTTP routes are supported`);
  if (typeof r.method !== 'string' || !METHODS.has(r.method)) throw new Error(`${where}: method must be one of ${[...METHODS].join(', ')}`);
  if (typeof r.path !== 'string') throw new Error(`${where}: path must be a string`);
  if (typeof r.handle !== 'function') throw new Error(`${where} (${r.method} ${r.path}): handle must be a function`);
  for (const key of ['params', 'query', 'body'] as const) {
    const schema = r[key] as { safeParse?: unknown } | undefined;
    if (schema !== undefined && typeof schema?.safeParse !== 'function') throw new Error(`${where} (${r.method} ${r.path}): ${key} must be a zod schema`);
  }
  return {
    kind: 'http',
    method: r.method as HttpMethod,
    path: r.path,
    access: checkAccess(r.access, `${where} (${r.method} ${r.path})`, plugin.capabilities),
    ...(r.params ? { params: r.params as HttpRoute['params'] } : {}),
    ...(r.query ? { query: r.query as HttpRoute['query'] } : {}),
    ...(r.body ? { body: r.body as HttpRoute['body'] } : {}),
    handle: r.handle as HttpRoute['handle'],
  };
}

/**
 * Admin-only unless the route lets agents in with one of the plugin's own capabilities. Always
 * the management gate and the whole chain: no public or 2FA-exempt plugin routes.
 */
function checkAccess(value: unknown, where: string, capabilities: readonly string[]): Access {
  if (value === undefined) return { roles: ADMIN_ONLY, gate: 'management' };
  if (typeof value !== 'object' || value === null) throw new Error(`${where}: access must be an object`);
  const { roles, capability, ...rest } = value as { roles?: unknown; capability?: unknown; gate?: unknown };
  const extra = Object.keys(rest).filter((key) => !(key === 'gate' && rest.gate === 'management'));
  if (extra.length > 0) throw new Error(`${where}: access may only name roles and capability (not ${extra.join(', ')})`);
  const list = roles ?? ADMIN_ONLY;
  if (!Array.isArray(list) || list.some((role) => typeof role !== 'string' || !ROLES.has(role))) throw new Error(`${where}: roles must be 'admin' and/or 'agent'`);
  if (!list.includes('agent')) return { roles: ADMIN_ONLY, gate: 'management' };
  if (typeof capability !== 'string' || !capabilities.includes(capability)) {
    throw new Error(`${where}: a route open to agents needs one of the plugin's capabilities (${capabilities.join(', ') || 'none declared'})`);
  }
  return { roles: ['admin', 'agent'], capability, gate: 'management' };
}

function panelRoute(name: string, bundle: Uint8Array<ArrayBuffer>): HttpRoute {
  return route({
    method: 'GET',
    path: `/api/${name}/panel.js`,
    access: { roles: ADMIN_ONLY, gate: 'management' },
    handle: () => new Response(bundle, { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' } }),
  }) as HttpRoute;
}
