import type { Runtime } from '../runtime.ts';
import { errorResponse, Response } from './responses.ts';
import type { WsRoute } from './route.ts';
import { handlerContext } from './handler-context.ts';
import type { Middleware } from './state.ts';

export type { PendingUpgrade, RouteSocket } from './socket.ts';

let upgradedMarker: Response | undefined;

/** Returned by a WebSocket route once the edge took the socket; never sent. Made on first use, with the edge's class. */
export const upgraded = (): Response => (upgradedMarker ??= new Response(null, { status: 204 }));

/** The last step of a WebSocket route: let the edge finish the handshake, then hand the socket to the route. */
export function acceptUpgrade(route: WsRoute, services: Runtime): Middleware {
  return (request, state) => {
    if (!state.upgrade) return errorResponse(426, 'Upgrade required');
    if (route.feed) state.feed = true;
    state.upgrade.accept((socket) => route.connect({ ...handlerContext(request, state, services), body: undefined }, socket));
    return upgraded();
  };
}
