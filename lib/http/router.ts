import { Router } from 'itty-router';
import type { WebSocketServer } from 'ws';
import type { Runtime } from '../runtime.ts';
import { renderError } from './error-boundary.ts';
import { accessGuard } from './middleware/access-guard.ts';
import { identify } from './middleware/identify.ts';
import { onboardingGate } from './middleware/onboarding-gate.ts';
import { requireTwoFactor } from './middleware/two-factor.ts';
import { validate } from './middleware/validate.ts';
import { errorResponse } from './responses.ts';
import { handlerContext } from './handler-context.ts';
import type { AnyRoute, HttpRoute } from './route.ts';
import { createSpaHandler } from './spa.ts';
import type { Middleware, RequestState, RoutedRequest } from './state.ts';
import { acceptUpgrade } from './websocket.ts';

function callHandler(route: HttpRoute, services: Runtime): Middleware {
  return (request, state) => route.handle(handlerContext(request, state, services));
}

/**
 * The chain in the spec's order; each step ends the request by returning a Response. Steps that
 * have nothing to check for this route are left out rather than run as no-ops.
 */
export function chainFor(route: AnyRoute, services: Runtime, sockets: WebSocketServer): Middleware[] {
  const steps = [
    identify(route, services),
    requireTwoFactor(route, services),
    onboardingGate(route, services),
    accessGuard(route),
    validate(route),
    route.kind === 'ws' ? acceptUpgrade(route, services, sockets) : callHandler(route, services),
  ];
  return steps.filter((step): step is Middleware => step !== undefined);
}

export type AppRouter = { fetch(request: Request, state: RequestState): Promise<Response> };

export function buildRouter(routes: readonly AnyRoute[], services: Runtime, sockets: WebSocketServer): AppRouter {
  const router = Router<RoutedRequest, [RequestState]>({ catch: (error: unknown) => renderError(error, services) });
  const register = router as unknown as Record<string, (path: string, ...steps: Middleware[]) => void>;
  for (const route of routes) register[route.method.toLowerCase()](route.path, ...chainFor(route, services, sockets));
  const spa = createSpaHandler(() => services.config.value.staticDir);
  router.all('/api/*', () => errorResponse(404, 'Not found'));
  router.get('*', (request) => spa(request));
  router.all('*', () => errorResponse(404, 'Not found'));
  return router as unknown as AppRouter;
}
