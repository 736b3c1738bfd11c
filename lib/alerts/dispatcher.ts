// Sends alerts to webhooks off the request path: `enqueue` only queues (a handler or a watcher never
// waits for a receiver), a timer sends what is due, a failed attempt is tried again with backoff until
// an hour after the alert, then given up. Memory is bounded whatever the receivers do: at most
// MAX_PENDING alerts wait (the oldest is dropped, and logged so), at most MAX_IN_FLIGHT are being
// sent, each attempt ends after ATTEMPT_TIMEOUT_MS, an answer's body is never read, and the log keeps
// the last LOG_SIZE deliveries. Each attempt resolves the webhook's name, checks every address against
// the target policy and connects only to those (lib/alerts/target.ts); the log says `unreachable` or
// `refused: private address`, never the socket's error, so it tells nobody what listens where.
import { randomUUID } from 'node:crypto';
import { isoOrNull, type Clock } from '../clock.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { z } from 'zod';
import { postPinned } from './pinned-post.ts';
import type { DeliveryShape } from './schema.ts';
import { SIGNATURE_HEADER, signBody } from './signature.ts';
import { checkedAddresses, systemResolve, TargetRefused, type ResolveHost, type TargetPolicy } from './target.ts';

export const MAX_PENDING = 100;
export const MAX_IN_FLIGHT = 4;
export const LOG_SIZE = 200;
const ATTEMPT_TIMEOUT_MS = 10_000;
const GIVE_UP_AFTER_MS = 60 * 60_000;
/** Wait before attempt n+1 (the last repeats): 10 s, 30 s, 1, 2, 5, 10, 15 min ... until the hour is up. */
export const BACKOFF_MS = [10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000];
const TICK_MS = 1_000;

/** A delivery as the log shows it (the API's documented shape). */
export type DeliveryView = z.infer<typeof DeliveryShape>;
type DeliveryState = DeliveryView['state'];

interface Delivery {
  id: string;
  webhookId: string;
  event: DeliveryView['event'];
  body: string;
  state: DeliveryState;
  attempts: number;
  statusCode: number | null;
  error: string | null;
  createdAt: number;
  lastAttemptAt: number | null;
  nextAt: number;
}

/** Where a webhook sends to, looked up at each attempt: a changed URL or secret applies to retries, a deleted webhook ends them. */
type WebhookTarget = (webhookId: string) => { url: string; secret: string } | undefined;

export interface DispatcherOptions {
  /** ATTEMPT_TIMEOUT_MS unless given (tests) */
  attemptTimeoutMs?: number;
  /** What may be a target, read at each attempt; public addresses only unless given. */
  policy?: () => TargetPolicy;
  /** How names are resolved; the system resolver unless given (tests). */
  resolve?: ResolveHost;
  /** Makes an attempt's timeout; AbortSignal.timeout unless given (tests fire it by hand instead of waiting it out). */
  timeoutSignal?: (ms: number) => AbortSignal;
}

const PUBLIC_ONLY: TargetPolicy = { allowPrivate: false, relayDomain: null };

export class AlertDispatcher {
  readonly #pending: Delivery[] = [];
  readonly #log: Delivery[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  /** who waits for a delivery's first attempt to end (a test alert the admin is looking at) */
  readonly #firstAttempt = new Map<Delivery, () => void>();
  #stopTimer: (() => void) | null = null;
  #closed = false;
  /** ends the attempts under way when the panel stops, rather than waiting out their timeouts */
  readonly #closing = new AbortController();

  constructor(
    private readonly target: WebhookTarget,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: DispatcherOptions = {},
  ) {}

  /** Queues one alert for one webhook and returns at once; the first attempt starts in this turn's wake. */
  enqueue(webhookId: string, event: DeliveryView['event'], data: Record<string, unknown>, box: string | null): DeliveryView {
    const now = this.clock.now();
    const id = randomUUID();
    const delivery: Delivery = {
      id, webhookId, event,
      // what a receiver gets: `id` names the delivery (the same on every retry, so repeats can be dropped), `box` the relay's domain
      body: JSON.stringify({ id, event, at: new Date(now).toISOString(), box, data }),
      state: 'pending', attempts: 0, statusCode: null, error: null, createdAt: now, lastAttemptAt: null, nextAt: now,
    };
    // the oldest waiting, not one being sent: its attempt would bring it back
    const oldestWaiting = this.#pending.length >= MAX_PENDING ? this.#pending.findIndex((d) => d.state === 'pending') : -1;
    if (oldestWaiting >= 0) {
      const [oldest] = this.#pending.splice(oldestWaiting, 1) as [Delivery];
      Object.assign(oldest, { state: 'dropped', error: `more than ${MAX_PENDING} alerts waiting` });
      this.#attempted(oldest);
      this.log.warn(`alert ${oldest.id} (${oldest.event}) dropped: more than ${MAX_PENDING} alerts waiting`);
    }
    this.#pending.push(delivery);
    this.#remember(delivery);
    queueMicrotask(() => this.#pump());
    return view(delivery);
  }

  /**
   * Queues like `enqueue` and resolves once the first attempt has ended (delivered, refused, or
   * failed and waiting for its retry) or the delivery was dropped: what one attempt says, without
   * waiting out the retries. An attempt ends within the attempt timeout; so does the wait for room
   * to start it, after which the delivery is answered as it is (`pending`).
   */
  async enqueueAndAttempt(webhookId: string, event: DeliveryView['event'], data: Record<string, unknown>, box: string | null): Promise<DeliveryView> {
    const { id } = this.enqueue(webhookId, event, data, box);
    const delivery = this.#log.find((d) => d.id === id)!;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#firstAttempt.set(delivery, resolve);
      timer = setTimeout(resolve, 2 * this.#timeoutMs);
    });
    clearTimeout(timer);
    this.#firstAttempt.delete(delivery);
    return view(delivery);
  }

  /** The last LOG_SIZE deliveries, newest first. */
  deliveries(): DeliveryView[] {
    return this.#log.map(view).reverse();
  }

  /** Ends the waiting deliveries of a deleted webhook. */
  forget(webhookId: string): void {
    for (let i = this.#pending.length - 1; i >= 0; i--) {
      const d = this.#pending[i]!;
      if (d.webhookId !== webhookId) continue;
      this.#pending.splice(i, 1);
      Object.assign(d, { state: 'dropped', error: 'webhook deleted' });
      this.#attempted(d);
    }
  }

  pendingCount(): number {
    return this.#pending.length;
  }

  /** Resolves when no attempt is under way (tests; shutdown). */
  async settled(): Promise<void> {
    // the attempts enqueue has scheduled start first
    await Promise.resolve();
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopTimer?.();
    this.#stopTimer = null;
    // only attempts under way listen (no attempt starts once closed); an abort makes a DOMException
    // and its stack, a tenth of a millisecond of every test kit's close
    if (this.#inFlight.size > 0) this.#closing.abort();
    await this.settled();
    for (const delivery of [...this.#firstAttempt.keys()]) this.#attempted(delivery);
  }

  get #timeoutMs(): number {
    return this.options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
  }

  #remember(delivery: Delivery): void {
    this.#log.push(delivery);
    if (this.#log.length > LOG_SIZE) this.#log.shift();
  }

  /** Starts every due attempt there is room for; the timer runs only while something waits. */
  #pump(): void {
    if (this.#closed) return;
    const now = this.clock.now();
    for (const delivery of this.#pending) {
      if (this.#inFlight.size >= MAX_IN_FLIGHT) break;
      if (delivery.state !== 'pending' || delivery.nextAt > now) continue;
      const attempt = this.#attempt(delivery).finally(() => {
        this.#inFlight.delete(attempt);
        this.#attempted(delivery);
        this.#pump();
      });
      this.#inFlight.add(attempt);
    }
    if (this.#pending.length > 0) this.#stopTimer ??= this.clock.every(TICK_MS, () => this.#pump());
    else {
      this.#stopTimer?.();
      this.#stopTimer = null;
    }
  }

  #attempted(delivery: Delivery): void {
    this.#firstAttempt.get(delivery)?.();
    this.#firstAttempt.delete(delivery);
  }

  async #attempt(delivery: Delivery): Promise<void> {
    const target = this.target(delivery.webhookId);
    if (!target) return this.#end(delivery, 'dropped', 'webhook deleted');
    delivery.state = 'sending';
    delivery.attempts++;
    delivery.lastAttemptAt = this.clock.now();
    try {
      const url = new URL(target.url);
      const timeout = (this.options.timeoutSignal ?? AbortSignal.timeout)(this.#timeoutMs);
      const signal = AbortSignal.any([timeout, this.#closing.signal]);
      const policy = this.options.policy?.() ?? PUBLIC_ONLY;
      const addresses = await checkedAddresses(url, policy, this.options.resolve ?? systemResolve, signal);
      // a redirect is an answer (retried like any other non-2xx), not a second place to send the alert to
      const status = await postPinned({
        url,
        addresses,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'relay-panel-alerts',
          'x-relay-event': delivery.event,
          'x-relay-delivery': delivery.id,
          [SIGNATURE_HEADER]: signBody(target.secret, delivery.body),
        },
        body: delivery.body,
        signal,
      });
      delivery.statusCode = status;
      if (status >= 200 && status < 300) return this.#end(delivery, 'delivered', null);
      this.#retry(delivery, `HTTP ${status}`);
    } catch (error) {
      delivery.statusCode = null;
      // the cause stays in the panel's own log, at debug level (off by default)
      this.log.debug(`alert ${delivery.id} attempt ${delivery.attempts}: ${errorMessage(error)}`);
      this.#retry(delivery, describeFailure(error, this.#timeoutMs));
    }
  }

  #retry(delivery: Delivery, error: string): void {
    // dropped while it was being sent (its webhook deleted)
    if (!this.#pending.includes(delivery)) return;
    const next = this.clock.now() + BACKOFF_MS[Math.min(delivery.attempts - 1, BACKOFF_MS.length - 1)]!;
    if (next > delivery.createdAt + GIVE_UP_AFTER_MS) {
      this.log.warn(`alert ${delivery.id} (${delivery.event}) given up after ${delivery.attempts} attempts: ${error}`);
      return this.#end(delivery, 'failed', error);
    }
    Object.assign(delivery, { state: 'pending', error, nextAt: next });
  }

  #end(delivery: Delivery, state: DeliveryState, error: string | null): void {
    Object.assign(delivery, { state, error });
    const index = this.#pending.indexOf(delivery);
    if (index >= 0) this.#pending.splice(index, 1);
  }
}

/**
 * What the log says of an attempt without an answer. Not the socket's error: ECONNREFUSED against
 * ENETUNREACH against a TLS failure would map what listens where to whoever reads the log.
 */
function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof TargetRefused) return error.message;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer in ${timeoutMs / 1000} s`;
  return 'unreachable';
}

function view(d: Delivery): DeliveryView {
  return {
    id: d.id, webhookId: d.webhookId, event: d.event, state: d.state, attempts: d.attempts, statusCode: d.statusCode, error: d.error,
    createdAt: isoOrNull(d.createdAt)!, lastAttemptAt: isoOrNull(d.lastAttemptAt), nextAttemptAt: d.state === 'pending' ? isoOrNull(d.nextAt) : null,
  };
}
