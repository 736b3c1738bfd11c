import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The JSON body, or undefined when it is not JSON. */
  json(): any;
}

/** Parses the first HTTP/1.1 response in `bytes` (content-length framing; the rest is the body). */
export function parseAnswer(bytes: Buffer): RawAnswer {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no HTTP response head in ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  const rest = bytes.subarray(end + 4);
  const body = (headers['content-length'] === undefined ? rest : rest.subarray(0, Number(headers['content-length']))).toString('utf8');
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body,
    json() {
      try {
        return JSON.parse(body);
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Writes `request` as is to 127.0.0.1:port (clients would normalize a malformed Host or target)
 * and reads until the server closes the connection; send `connection: close` in the request.
 */
export function rawExchange(port: number, request: string | Buffer, timeoutMs = 4000): Promise<RawAnswer> {
  const socket = connect(port, '127.0.0.1', () => socket.write(request));
  return answerAtClose(socket, timeoutMs);
}

/** The answer `socket` brings until the server closes it (destroyed after `timeoutMs` without a close). */
export function answerAtClose(socket: Socket, timeoutMs: number, parse: (bytes: Buffer) => RawAnswer = parseAnswer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no close within ${timeoutMs} ms`)));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** A request head with CRLFs; `headers` are written in order, as given. */
export function rawHead(method: string, target: string, headers: [string, string][]): string {
  return [`${method} ${target} HTTP/1.1`, ...headers.map(([name, value]) => `${name}: ${value}`), '', ''].join('\r\n');
}

/** A multipart POST's head to 127.0.0.1, `headers` after its host and content type. */
export function multipartHead(target: string, boundary: string, headers: [string, string][]): string {
  return rawHead('POST', target, [['host', '127.0.0.1'], ['content-type', `multipart/form-data; boundary=${boundary}`], ...headers]);
}
