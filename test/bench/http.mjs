// A small node:http client for probes, byte fetches, the ticket round trip and cold-start polling.
// Only ever used against 127.0.0.1.
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';

export function createClient({ maxSockets = 8 } = {}) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  return {
    request: (url, options) => send(url, { ...options, agent }),
    close: () => agent.destroy(),
  };
}

/** One request; resolves `{status, headers, body: Buffer, text, json()}`; rejects on network errors. */
export function send(url, { method = 'GET', headers = {}, body, agent = false, timeoutMs = 10_000 } = {}) {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error(`refusing to send traffic to ${target.hostname}`);
  const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const allHeaders = { ...headers };
  if (payload) {
    allHeaders['content-type'] ??= 'application/json';
    allHeaders['content-length'] = payload.length;
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(target, { method, headers: allHeaders, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const buffer = Buffer.concat(chunks);
        const text = buffer.toString('utf8');
        resolve({
          status: res.statusCode,
          headers: res.headers,
          body: buffer,
          text,
          json() {
            try {
              return JSON.parse(text);
            } catch {
              return undefined;
            }
          },
        });
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The router's answer for a path nobody registered (lib/http/router.ts). */
export function isRouteMissing(response) {
  return response.status === 404 && response.json()?.error === 'Not found';
}

/**
 * One request on a fresh socket with `Connection: close`, read until the server closes it: returns
 * the bytes the server really wrote, so a wrong content-length shows up instead of a parse error.
 */
export function probe(url, { method = 'GET', headers = {}, body, timeoutMs = 10_000 } = {}) {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error(`refusing to send traffic to ${target.hostname}`);
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
  const lines = [`${method} ${target.pathname}${target.search} HTTP/1.1`, `host: ${target.host}`, 'connection: close'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (body !== undefined) lines.push('content-type: application/json', `content-length: ${payload.length}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), '127.0.0.1', () => {
      socket.write(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), payload]));
    });
    const chunks = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`${method} ${url}: not closed within ${timeoutMs} ms`)));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`${method} ${url}: no HTTP response head`));
      const [statusLine, ...headerLines] = all.subarray(0, end).toString('latin1').split('\r\n');
      const responseHeaders = {};
      for (const line of headerLines) {
        const at = line.indexOf(':');
        responseHeaders[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      let bytes = all.subarray(end + 4);
      if (/chunked/i.test(responseHeaders['transfer-encoding'] ?? '')) bytes = dechunk(bytes);
      const declared = responseHeaders['content-length'] === undefined ? undefined : Number(responseHeaders['content-length']);
      const text = bytes.toString('utf8');
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers: responseHeaders,
        body: bytes,
        text,
        /** null when the declared content-length matches the bytes sent */
        framingProblem:
          declared !== undefined && declared !== bytes.length
            ? `content-length ${declared} but ${bytes.length} body bytes sent`
            : null,
        json() {
          try {
            return JSON.parse(text);
          } catch {
            return undefined;
          }
        },
      });
    });
  });
}

function dechunk(bytes) {
  const parts = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
