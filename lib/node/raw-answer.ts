import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from '../http/responses.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The `{error}` shape for answers the edge writes itself, before (or instead of) the app. */
export function writeJsonError(res: ServerResponse, status: number, message: string): void {
  const body = Buffer.from(JSON.stringify(errorBody(message)));
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': body.length });
  res.end(body);
}

/** Answers a refused upgrade on the bare socket with a status, a JSON body, and `connection: close`. */
export function endSocketWith(socket: Duplex, status: number, body: Uint8Array, contentType = JSON_TYPE): void {
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    `content-type: ${contentType}`,
    `content-length: ${body.byteLength}`,
    'connection: close',
    '',
    '',
  ].join('\r\n');
  if (!socket.destroyed) socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}

export function endSocketWithError(socket: Duplex, status: number, message: string): void {
  endSocketWith(socket, status, Buffer.from(JSON.stringify(errorBody(message))));
}
