import { Router } from 'itty-router';
import type { Runtime } from '../runtime.ts';
import { renderError } from './error-boundary.ts';
import { accessGuard } from './middleware/access-guard.ts';
import { identify } from './middleware/identify.ts';
import { onboardingGate } from './middleware/onboarding-gate.ts';
import { requireTwoFactor } from './middleware/two-factor.ts';
import { sameOrigin } from './middleware/same-origin.ts';
import { validate } from './middleware/validate.ts';
import { isMultipartSpec } from './multipart.ts';
import { serializer } from './serialize-answer.ts';
import { errorResponse } from './responses.ts';
import { withPageHeaders } from './page-headers.ts';
import { handlerContext } from './handler-context.ts';
import type { RequestObserver, RouteRecorder } from './observer.ts';
import { isLazy, type RouteEntry } from './lazy-route.ts';
import { perRouteList } from './per-route-list.ts';
import type { AnyRoute, HttpRoute } from './route.ts';
import { bySpecificity } from './route-order.ts';
import type { Middleware, RequestState, RoutedRequest } from './state.ts';
import { acceptUpgrade } from './websocket.ts';

function callHandler(route: HttpRoute, services: Runtime): Middleware {
  const answer = serializer(route.response);
  if (!isMultipartSpec(route.body)) {
    if (!answer) return (request, state) => route.handle(handlerContext(request, state, services)) as Response | Promise<Response>;
    return async (request, state) => answer(await route.handle(handlerContext(request, state, services)));
  }
  return async (request, state) => {
    try {
      const returned = await route.handle(handlerContext(request, state, services));
      return answer ? answer(returned) : (returned as Response);
    } finally {
      await state.cleanup?.();
    }
  };
}

/**
 * The chain in the spec's order; each step ends the request by returning a Response. Steps that
 * have nothing to check for this route are left out rather than run as no-ops.
 */
export function chainFor(route: AnyRoute, services: Runtime): Middleware[] {
  const steps = [
    sameOrigin(route, services),
    identify(route, services),
    requireTwoFactor(route, services),
    onboardingGate(route, services),
    accessGuard(route),
    validate(route),
    route.kind === 'ws' ? acceptUpgrade(route, services) : callHandler(route, services),
  ];
  return steps.filter((step): step is Middleware => step !== undefined);
}

/** One itty Router over a list of routes; answers undefined when none matches. */
export interface RouteTable {
  fetch(request: Request, state: RequestState): Promise<Response | undefined>;
}

/** The chain's first step also names the route's recorder: no extra step per request. */
function recorded(chain: Middleware[], recorder: RouteRecorder): Middleware[] {
  const [first, ...rest] = chain;
  return [
    (request, state) => {
      state.recorder = recorder;
      return first!(request, state);
    },
    ...rest,
  ];
}

/** One entry of itty's table: method, compiled pattern, the steps, the pattern as written. */
type IttyEntry = [method: string, pattern: RegExp, steps: Middleware[], path: string];

/**
 * A route list's entries without their steps: the routes most specific first (see route-order.ts:
 * the list's own order only breaks ties), each pattern compiled by itty, GET routes once more as
 * HEAD (RFC 9110; the app drops the body), and where each method and pattern is in the list. They
 * depend on the list alone, so they are worked out once per list: the test kit builds an app for
 * each case from the same list, and the sort and the compiled patterns were most of what an app's
 * set-up cost. A pattern without the g or y flag keeps no state between matches, so tables can
 * share it.
 */
const compiledEntries = perRouteList((routes): { entries: { route: RouteEntry; entry: IttyEntry }[]; at: Map<string, number>; twice: Set<string> } => {
  const ordered = bySpecificity(routes);
  // itty compiles a pattern as it is registered; a throwaway router does it, with no steps
  const router = Router();
  const register = router as unknown as Record<string, (path: string) => void>;
  const owners: RouteEntry[] = [];
  for (const route of ordered) {
    register[route.method.toLowerCase()]!(route.path);
    owners.push(route);
    if (route.method === 'GET') {
      register.head!(route.path);
      owners.push(route);
    }
  }
  const entries = (router.routes as unknown as IttyEntry[]).map((entry, i) => ({ route: owners[i]!, entry }));
  const at = new Map<string, number>();
  // a method and pattern twice (a plugin's own list may have that): itty goes on to the second
  // when the first passes, so each of those keeps a stand-in of its own
  const twice = new Set<string>();
  entries.forEach(({ entry: [method, , , path] }, i) => {
    const key = entryKey(method, path);
    if (at.has(key)) twice.add(key);
    else at.set(key, i);
  });
  return { entries, at, twice };
});

/**
 * Works out the list's entries now, so that a startup snapshot made after this keeps them
 * (lib/cli.ts): a start from it neither sorts the routes nor compiles their patterns.
 */
export function compileRouteList(routes: readonly RouteEntry[]): void {
  compiledEntries(routes);
}

const entryKey = (method: string, path: string) => `${method} ${path}`;

/**
 * Registers each route, in the order and with the patterns of `compiledEntries`; a route's steps
 * are built when it first answers. `otherwise`, when given, answers every request no route took.
 *
 * Until then every entry holds the table's one stand-in, which finds the entry by the method and
 * the pattern itty left on the request, builds the route's chain (loading a lazy route's module
 * first), puts it in the entry for later requests and runs it as itty would: each step in turn
 * until one answers. An app of 105 routes built 210 entries' chains up front, and most apps (a test
 * kit's, one per case; a restore's) answer a few routes in their life; a stand-in per entry was
 * still most of a kit's app.
 */
export function routeTable(routes: readonly RouteEntry[], services: Runtime, otherwise?: Middleware, observer?: RequestObserver): RouteTable {
  const chains = new Map<AnyRoute, Middleware[]>();
  const chainOf = (route: AnyRoute): Middleware[] => {
    let chain = chains.get(route);
    if (!chain) {
      const steps = chainFor(route, services);
      const recorder = recorderOf(route);
      chain = recorder ? recorded(steps, recorder) : steps;
      chains.set(route, chain);
    }
    return chain;
  };
  // a lazy route's request is the route's in /metrics while its module loads, so a load that fails counts there too
  const recorderOf = (route: RouteEntry) => observer?.route(route.kind === 'ws' ? 'WS' : route.method, route.path);
  const { entries: compiled, at, twice } = compiledEntries(routes);
  const firstRequest = (i: number, request: RoutedRequest, state: RequestState) => {
    const { route } = compiled[i]!;
    const run = (chain: Middleware[]) => {
      entries[i]![2] = chain;
      return runSteps(chain, request, state);
    };
    if (!isLazy(route)) return run(chainOf(route));
    if (observer) state.recorder = recorderOf(route);
    return route.load().then((loaded) => run(chainOf(loaded)));
  };
  // itty leaves the matched entry's method and pattern on the request
  const standIn: Middleware[] = [(request, state) => firstRequest(at.get(entryKey(request.method, (request as RoutedRequest & { route: string }).route))!, request, state)];
  // by index, not destructured: an array pattern takes an iterator per entry
  const entries = compiled.map(({ entry }, i): IttyEntry => [
    entry[0],
    entry[1],
    twice.size && twice.has(entryKey(entry[0], entry[3])) ? [(request, state) => firstRequest(i, request, state)] : standIn,
    entry[3],
  ]);
  const router = Router<RoutedRequest, [RequestState]>({ routes: entries as never, catch: (error: unknown) => renderError(error, services) });
  if (otherwise) router.all('*', otherwise);
  return router as unknown as RouteTable;
}

/** The steps in turn until one answers, as itty runs an entry's handlers (each awaited). */
async function runSteps(chain: Middleware[], request: RoutedRequest, state: RequestState): Promise<Response | undefined> {
  for (const step of chain) {
    const answer = await step(request, state);
    if (answer != null) return answer;
  }
  return undefined;
}

/** What answers when no route matched: 404 under /api, the client entry document (or a file of the client, read) elsewhere. */
export type ClientFiles = (request: Request) => Promise<Response>;

export function fallback(request: Request, pathname: string, clientFiles: ClientFiles): Promise<Response> | Response {
  if (pathname === '/api' || pathname.startsWith('/api/')) return errorResponse(404, 'Not found');
  // the platform spec: an unknown non-API path returns the entry document, whatever the method;
  // only a read may get one of the client's files
  const read = request.method === 'GET' || request.method === 'HEAD';
  return clientFiles(read ? request : new Request(new URL('/', request.url))).then(withPageHeaders);
}
