// A request head written as is over TLS to 127.0.0.1:port with the SNI given (clients would never
// send an absolute-form target with another Host, nor a Host other than their SNI): the answer
// parsed as test/helpers/raw-http.ts does. The server's certificate is not checked.
import { connect } from 'node:tls';
import { answerAtClose, parseAnswer, type RawAnswer } from './raw-http.ts';

export interface RawTlsRequest {
  port: number;
  /** null: no SNI at all */
  servername: string | null;
  head: string;
  clientCert?: { cert: string; key: string };
  timeoutMs?: number;
}

export function rawTlsExchange({ port, servername, head, clientCert, timeoutMs = 4000 }: RawTlsRequest): Promise<RawAnswer> {
  const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...(servername === null ? {} : { servername }), ...clientCert }, () => socket.write(head));
  return answerAtClose(socket, timeoutMs, (bytes) => {
    const answer = parseAnswer(bytes);
    return answer.headers['transfer-encoding'] === 'chunked' ? { ...answer, body: dechunked(answer.body) } : answer;
  });
}

/** A chunked body's data (the whole body read: the connection was closed). */
function dechunked(body: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const end = body.indexOf('\r\n', at);
    const size = parseInt(body.slice(at, end), 16);
    if (!(size > 0)) return out;
    out += body.slice(end + 2, end + 2 + size);
    at = end + 2 + size + 2;
  }
}
