// Shared steps of the onboarding tests: walking the states over HTTP, waiting for a run, and a
// stream client that records every message.
import bcrypt from 'bcryptjs';
import WebSocket from 'ws';
import type { StreamMessage } from '../../../lib/onboarding/events.ts';
import { OnboardingService } from '../../../lib/onboarding/service.ts';
import { sandboxControls } from '../../../lib/system/index.ts';
import { certificateHeaders, type TestApp } from '../../helpers/app.ts';

export const DOMAIN = 'relay.example.test';
export const EMAIL = 'ops@example.test';
export const HOST_IP = '203.0.113.10'; // makeTestApp's config ip

/**
 * bcryptjs at cost 12 takes about a second per hash; suites that provision many times swap in a
 * service hashing at cost 4 (one test checks the real cost).
 */
export function withCheapHashing(t: TestApp): TestApp {
  t.services.onboarding = new OnboardingService(t.services, { hashPassword: (p) => bcrypt.hash(p, 4) });
  return t;
}

/** FRESH -> DOMAIN_SET -> DNS_READY over HTTP, asserting each step answered 200. */
export async function walkToDnsReady(t: TestApp, domain = DOMAIN): Promise<void> {
  const set = await t.call('POST', '/api/onboarding/domain', { body: { domain, email: EMAIL } });
  if (set.status !== 200) throw new Error(`domain: ${set.status} ${JSON.stringify(set.body)}`);
  const dns = await t.call('POST', '/api/onboarding/verify-dns');
  if (dns.status !== 200) throw new Error(`verify-dns: ${dns.status} ${JSON.stringify(dns.body)}`);
}

/** The next terminal event of the shared stream (complete or error). Subscribe before starting. */
export function nextOutcome(t: TestApp): Promise<StreamMessage> {
  return new Promise((resolve) => {
    const off = t.services.onboarding.board.subscribe((m) => {
      if (m.type === 'complete' || m.type === 'error') {
        off();
        resolve(m);
      }
    });
  });
}

/** POST provision and wait for the run to end; the 202 body and the terminal event. */
export async function provisionAndWait(t: TestApp): Promise<{ status: number; body: any; outcome: StreamMessage }> {
  const outcome = nextOutcome(t);
  const { status, body } = await t.call('POST', '/api/onboarding/provision');
  if (status !== 202) throw new Error(`provision: ${status} ${JSON.stringify(body)}`);
  return { status, body, outcome: await outcome };
}

export const sandbox = (t: TestApp) => sandboxControls(t.services.system);

export interface StreamClient {
  messages: StreamMessage[];
  /** resolves with the first recorded message (from now or earlier) that matches */
  waitFor(match: (m: StreamMessage) => boolean): Promise<StreamMessage>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export function openStream(port: number): Promise<StreamClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/onboarding/provision/stream`, { headers: certificateHeaders('admin') });
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

/** The status and JSON body of a refused upgrade. */
export function refusedUpgrade(port: number): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/onboarding/provision/stream`, { headers: certificateHeaders('admin') });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', (e) => {
      if (!String(e.message).includes('Unexpected server response')) reject(e);
    });
  });
}

/** Holds every call of an async function until `release()`; `entered` resolves at the first call. */
export function gate<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  let release!: () => void;
  let entered!: () => void;
  const released = new Promise<void>((ok) => (release = ok));
  const enteredP = new Promise<void>((ok) => (entered = ok));
  return {
    wrapped: async (...args: A): Promise<R> => {
      entered();
      await released;
      return fn(...args);
    },
    entered: enteredP,
    release: () => release(),
  };
}
