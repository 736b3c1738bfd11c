// What nginx's traffic log sends on a real host (lib/system/proxy/templates.ts trafficLog), made by
// the sandbox's own server for the tunnel and site requests it answers, into the same meter: the
// tunnels' and sites' sparklines move in a plain `npm start`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TrafficMeter } from '../traffic/meter.ts';

/** The request line and headers as they came ($request_length counts them too). */
function headerBytes(req: IncomingMessage): number {
  let bytes = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`.length + 2;
  for (const part of req.rawHeaders) bytes += Buffer.byteLength(part);
  return bytes + req.rawHeaders.length * 2;
}

/** Records one line for `vhost` (`app:<fqdn>`, `site:<fqdn>`) once the answer is sent. */
export function meterRequest(meter: Pick<TrafficMeter, 'record'>, vhost: string, req: IncomingMessage, res: ServerResponse): void {
  const started = performance.now();
  const sentBefore = req.socket.bytesWritten;
  let bodyIn = 0;
  req.on('data', (chunk: Buffer) => (bodyIn += chunk.length));
  res.once('finish', () => {
    const seconds = Math.round(performance.now() - started) / 1000;
    meter.record(JSON.stringify({ v: vhost, s: res.statusCode, in: headerBytes(req) + bodyIn, out: req.socket.bytesWritten - sentBefore, t: seconds }));
  });
}
