import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Runtime } from '../runtime.ts';
import { renderError } from './error-boundary.ts';
import type { AnyRoute } from './route.ts';
import { buildRouter } from './router.ts';
import type { RequestState } from './state.ts';
import { UPGRADED, refuseUpgrade, requestFromUpgrade } from './websocket.ts';

/** What @whatwg-node/server hands the fetch function under node:http. */
export interface NodeServerContext {
  req?: IncomingMessage;
}

export interface App {
  /** The whole API as a fetch function: usable in any fetch runtime and in tests. */
  fetch(request: Request, serverContext?: NodeServerContext): Promise<Response>;
  /** For node's `upgrade` event: runs the same chain, then hands the socket to the route. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
  services: Runtime;
  /** Closes every WebSocket with 1001 (going away). */
  closeSockets(): void;
  /** Closes the sockets, then stops the services' timers and waits for pending writes. */
  close(): Promise<void>;
}

export function createApp(services: Runtime, routes: readonly AnyRoute[]): App {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const router = buildRouter(routes, services, sockets);
  return {
    services,
    fetch: (request, serverContext) => router.fetch(request, { peer: serverContext?.req?.socket?.remoteAddress }),
    async handleUpgrade(message, socket, head) {
      socket.on('error', () => socket.destroy());
      const state: RequestState = { upgrade: { request: message, socket, head }, peer: message.socket.remoteAddress };
      let response: Response;
      try {
        response = await router.fetch(requestFromUpgrade(message), state);
      } catch (error) {
        response = renderError(error, services);
      }
      if (response !== UPGRADED) await refuseUpgrade(socket, response);
    },
    closeSockets() {
      for (const client of sockets.clients) client.close(1001, 'Server shutting down');
    },
    async close() {
      this.closeSockets();
      await services.close();
    },
  };
}
