// A client of the onboarding progress stream that records every message.
import WebSocket from 'ws';
import type { StreamMessage } from '../../lib/onboarding/events.ts';
import { callerHeaders, type Caller } from '../../lib/testing.ts';

export const provisionStreamUrl = (port: number) => `ws://127.0.0.1:${port}/api/onboarding/provision/stream`;

export interface StreamClient {
  messages: StreamMessage[];
  /** resolves with the first recorded message (from now or earlier) that matches */
  waitFor(match: (m: StreamMessage) => boolean): Promise<StreamMessage>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** Opens the stream on a loopback port; resolves once the upgrade is accepted. */
export function openStream(port: number, caller: Caller = 'admin'): Promise<StreamClient> {
  return openStreamWith(() => new WebSocket(provisionStreamUrl(port), { headers: callerHeaders(caller) }));
}

/** The same client on a socket the caller opens (e.g. TLS with a client certificate through nginx). */
export function openStreamWith(connect: () => WebSocket): Promise<StreamClient> {
  return new Promise((resolve, reject) => {
    const ws = connect();
    const messages: StreamMessage[] = [];
    const waiters: { match: (m: StreamMessage) => boolean; done: (m: StreamMessage) => void }[] = [];
    const closed = new Promise<{ code: number; reason: string }>((ok) => ws.on('close', (code, reason) => ok({ code, reason: String(reason) })));
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as StreamMessage;
      messages.push(message);
      for (const w of [...waiters]) {
        if (w.match(message)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.done(message);
        }
      }
    });
    ws.on('open', () =>
      resolve({
        messages,
        closed,
        close: () => ws.close(),
        waitFor: (match) => {
          const seen = messages.find(match);
          return seen ? Promise.resolve(seen) : new Promise((done) => waiters.push({ match, done }));
        },
      }),
    );
    ws.on('error', reject);
  });
}
