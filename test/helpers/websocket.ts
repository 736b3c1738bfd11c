import WebSocket from 'ws';
import { certificateHeaders, type Caller } from './app.ts';

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
    const ws = new WebSocket(url, { headers: { ...certificateHeaders(caller), ...extra.headers }, origin: extra.origin });
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
