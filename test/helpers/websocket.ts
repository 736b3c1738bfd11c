import WebSocket from 'ws';
import { callerHeaders, type Caller } from '../../lib/testing.ts';

/**
 * The status and JSON body of an upgrade the server refused; rejects if it was accepted. `extra`
 * adds headers (a Host, a forwarded host) and the browser's Origin.
 */
export function refusedUpgrade(
  url: string,
  caller: Caller = 'admin',
  extra: { headers?: Record<string, string>; origin?: string } = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { ...callerHeaders(caller), ...extra.headers }, origin: extra.origin });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    });
    ws.on('open', () => {
      ws.close();
      reject(new Error(`the upgrade to ${url} was accepted`));
    });
    ws.on('error', (e) => {
      if (!String(e.message).includes('Unexpected server response')) reject(e);
    });
  });
}

export interface Feed<T> {
  /** every JSON message so far, oldest first */
  readonly messages: T[];
  /** Waits until `count` messages have come; rejects after `ms`. */
  next(count: number, ms?: number): Promise<void>;
  /** the close code, once the server or the client closed it */
  readonly closed: Promise<number>;
  /**
   * Resolves once a ping sent now is answered: the server sends in order, so whatever it had sent
   * before has arrived. "Nothing more came" without waiting a while, once what would send is done.
   */
  quiet(): Promise<void>;
  close(): void;
}

/** A live feed's socket (WsRoute.feed) once open, collecting its JSON messages. */
export async function openFeed<T>(url: string, caller: Caller = 'admin'): Promise<Feed<T>> {
  const ws = new WebSocket(url, { headers: callerHeaders(caller) });
  const messages: T[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data)) as T));
  const closed = new Promise<number>((resolve) => ws.once('close', resolve));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return {
    messages,
    closed,
    async next(count, ms = 30_000) {
      for (const end = Date.now() + ms; messages.length < count; await new Promise((r) => setTimeout(r, 10))) {
        if (Date.now() > end) throw new Error(`${messages.length} messages, waited for ${count}`);
      }
    },
    quiet: () =>
      new Promise<void>((resolve, reject) => {
        ws.once('pong', () => resolve());
        ws.ping((error?: Error) => error && reject(error));
      }),
    close: () => ws.close(),
  };
}
