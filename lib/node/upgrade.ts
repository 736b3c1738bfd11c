import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Request } from '@whatwg-node/fetch';
import { APP_ORIGIN } from './request-target.ts';

// Hop-by-hop and handshake headers stay with the raw request; the chain needs the rest.
const SKIPPED_HEADERS = new Set(['connection', 'upgrade', 'keep-alive', 'transfer-encoding', 'host']);

/** The handshake as the Request the chain checks (a GET: only GET may upgrade). */
export function handshakeRequest(message: IncomingMessage, target: string): Request {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined || SKIPPED_HEADERS.has(name) || name.startsWith('sec-websocket-')) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return new Request(`${APP_ORIGIN}${target}`, { method: 'GET', headers }) as unknown as globalThis.Request;
}

/**
 * node:http hands every request carrying `Upgrade` to the `upgrade` event, with no response object
 * and its body left on the socket. Only a GET may become a WebSocket; anything else is put back as
 * it came minus the upgrade request, and the server parses it again as a plain request.
 */
export function replayWithoutUpgrade(server: Server, message: IncomingMessage, socket: Duplex, head: Buffer): void {
  const lines = [`${message.method} ${message.url} HTTP/${message.httpVersion}`];
  const raw = message.rawHeaders;
  for (let at = 0; at < raw.length; at += 2) {
    const name = raw[at]!;
    let value = raw[at + 1]!;
    if (/^upgrade$/i.test(name)) continue;
    if (/^connection$/i.test(name)) {
      value = value.split(',').map((token) => token.trim()).filter((token) => token && !/^upgrade$/i.test(token)).join(', ');
      if (!value) continue;
    }
    lines.push(`${name}: ${value}`);
  }
  socket.unshift(head);
  socket.unshift(Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'));
  server.emit('connection', socket);
}
