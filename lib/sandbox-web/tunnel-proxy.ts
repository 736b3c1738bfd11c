// A tunnel's name in the sandbox: the request goes to 127.0.0.1:<tunnel port>, where the tunnel's
// client on this same machine would deliver it, with the headers nginx sets on a real host
// (lib/system/proxy/templates.ts forwardedHeaders). Nothing listening there is nginx's 502.
import { request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';

/** Headers of one connection, not of the request: never passed on (RFC 9110 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const UNREACHABLE_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>502 Bad Gateway</title></head>
<body><h1>502 Bad Gateway</h1><p>Nothing answers on this tunnel's port: is the app (and its tunnel client) running?</p></body></html>
`;

function passed(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

export function proxyToTunnel(req: IncomingMessage, res: ServerResponse, port: number): void {
  const headers: IncomingHttpHeaders = {
    ...passed(req.headers),
    // exactly one trusted hop, as nginx: the client's own X-Forwarded-* are replaced
    'x-real-ip': req.socket.remoteAddress,
    'x-forwarded-for': req.socket.remoteAddress,
    'x-forwarded-proto': 'http',
    'x-forwarded-host': req.headers.host,
  };
  const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, passed(answer.headers));
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  });
  upstream.on('error', () => {
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(UNREACHABLE_PAGE) });
    res.end(UNREACHABLE_PAGE);
  });
  // the browser gone before the answer was sent: so is the request to the app (after a whole
  // answer its kept-alive socket may already serve another request)
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}
