import { errorMessage } from '../errors.ts';
import type { Runtime } from '../runtime.ts';
import { errorResponse, Response } from './responses.ts';
import type { WsRoute } from './route.ts';
import { handlerContext } from './handler-context.ts';
import type { RouteSocket } from './socket.ts';
import type { Middleware } from './state.ts';

export type { PendingUpgrade, RouteSocket } from './socket.ts';

let upgradedMarker: Response | undefined;

/** Returned by a WebSocket route once the edge took the socket; never sent. Made on first use, with the edge's class. */
export const upgraded = (): Response => (upgradedMarker ??= new Response(null, { status: 204 }));

/** RFC 6455's "internal error" close code: the server met a condition it could not handle. */
export const WS_INTERNAL_ERROR = 1011;

/** The last step of a WebSocket route: let the edge finish the handshake, then hand the socket to the route. */
export function acceptUpgrade(route: WsRoute, services: Runtime): Middleware {
  return (request, state) => {
    if (!state.upgrade) return errorResponse(426, 'Upgrade required');
    if (route.feed) state.feed = true;
    state.upgrade.accept((socket) => {
      // The socket has answered 101 by now: an HTTP status can no longer be sent on it, a close code can.
      const failed = (error: unknown) => {
        services.log.error(`WebSocket ${route.path} failed after the handshake: ${errorMessage(error)}`);
        closeWithInternalError(socket);
      };
      try {
        const result: unknown = route.connect({ ...handlerContext(request, state, services), body: undefined }, socket);
        if (result instanceof Promise) result.catch(failed);
      } catch (error) {
        failed(error);
      }
    });
    return upgraded();
  };
}

function closeWithInternalError(socket: RouteSocket): void {
  try {
    socket.close(WS_INTERNAL_ERROR, 'Internal error');
  } catch {
    socket.terminate(); // a socket already closing refuses a second close frame
  }
}
