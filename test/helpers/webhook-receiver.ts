// A webhook receiver on 127.0.0.1: records each POST (headers and body) and answers with the status
// `answer` chooses (with headers, for a redirect), or never (`'hang'`: a receiver that takes the request
// and says nothing).
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** requests taken and not yet answered */
  open(): number;
  /** the most requests open at once */
  mostOpen(): number;
  answer: (n: number) => number | 'hang' | { status: number; headers: Record<string, string> };
  /** resolves once `count` requests have arrived; rejects after `timeoutMs` (a failing test ends instead of hanging) */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(answer: WebhookReceiver['answer'] = () => 200): Promise<WebhookReceiver> {
  const received: Received[] = [];
  let open = 0;
  let mostOpen = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    received,
    open: () => open,
    mostOpen: () => mostOpen,
    answer,
    waitFor: (count, timeoutMs = 20_000) => {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ count, resolve: () => { clearTimeout(timer); resolve(); } });
      });
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server = createServer((req, res) => {
    open++;
    mostOpen = Math.max(mostOpen, open);
    res.on('close', () => open--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try { json = JSON.parse(body); } catch { /* kept as text */ }
      received.push({ headers: req.headers, body, json });
      for (const w of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const status = receiver.answer(received.length);
      if (status === 'hang') return;
      if (typeof status === 'number') res.writeHead(status).end();
      else res.writeHead(status.status, status.headers).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** What a receiver computes to check X-Relay-Signature (docs/operations.md > Alerts). */
export const expectedSignature = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
