import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import type { Runtime } from '../runtime.ts';
import { errorResponse, Response } from './responses.ts';
import type { WsRoute } from './route.ts';
import { handlerContext } from './handler-context.ts';
import type { Middleware } from './state.ts';

/** Returned by a WebSocket route once the socket is handed to `ws`; never sent. */
export const UPGRADED = new Response(null, { status: 204 });

// Hop-by-hop and handshake headers stay with the raw request; the chain needs the rest.
const SKIPPED_HEADERS = new Set(['connection', 'upgrade', 'keep-alive', 'transfer-encoding', 'host']);

export function requestFromUpgrade(message: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined || SKIPPED_HEADERS.has(name) || name.startsWith('sec-websocket-')) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`http://${message.headers.host ?? 'localhost'}${message.url ?? '/'}`, { method: 'GET', headers });
}

/** Answers a refused upgrade with the chain's status and JSON body, then closes the socket. */
export async function refuseUpgrade(socket: Duplex, response: Response): Promise<void> {
  const body = Buffer.from(await response.text());
  const head = [
    `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`,
    `content-type: ${response.headers.get('content-type') ?? 'application/json'}`,
    `content-length: ${body.length}`,
    'connection: close',
    '',
    '',
  ].join('\r\n');
  if (!socket.destroyed) socket.end(Buffer.concat([Buffer.from(head), body]));
}

/** The last step of a WebSocket route: hand the socket to `ws` and the route. */
export function acceptUpgrade(route: WsRoute, services: Runtime, server: WebSocketServer): Middleware {
  return (request, state) => {
    if (!state.upgrade) return errorResponse(426, 'Upgrade required');
    const { request: message, socket, head } = state.upgrade;
    server.handleUpgrade(message, socket, head, (ws) => {
      route.connect({ ...handlerContext(request, state, services), body: undefined }, ws);
    });
    return UPGRADED;
  };
}
