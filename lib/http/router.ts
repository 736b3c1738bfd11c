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

/**
 * Registers each route with its chain, most specific patterns first (see route-order.ts: the list's
 * own order only breaks ties); GET routes answer HEAD too (RFC 9110; the app drops the body).
 * `otherwise`, when given, answers every request no route took.
 */
export function routeTable(routes: readonly AnyRoute[], services: Runtime, otherwise?: Middleware, observer?: RequestObserver): RouteTable {
  const router = Router<RoutedRequest, [RequestState]>({ catch: (error: unknown) => renderError(error, services) });
  const register = router as unknown as Record<string, (path: string, ...steps: Middleware[]) => void>;
  for (const route of bySpecificity(routes)) {
    const steps = chainFor(route, services);
    const chain = observer ? recorded(steps, observer.route(route.kind === 'ws' ? 'WS' : route.method, route.path)) : steps;
    register[route.method.toLowerCase()]!(route.path, ...chain);
    if (route.method === 'GET') register.head!(route.path, ...chain);
  }
  if (otherwise) router.all('*', otherwise);
  return router as unknown as RouteTable;
}

/** What answers when no route matched: 404 under /api, the client entry document for other reads. */
export type ClientFiles = (request: Request) => Promise<Response>;

export function fallback(request: Request, pathname: string, clientFiles: ClientFiles): Promise<Response> | Response {
  const isRead = request.method === 'GET' || request.method === 'HEAD';
  if (!isRead || pathname === '/api' || pathname.startsWith('/api/')) return errorResponse(404, 'Not found');
  return clientFiles(request).then(withPageHeaders);
}
