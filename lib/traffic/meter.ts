// Traffic per vhost (`app:<fqdn>`, `site:<fqdn>`), from the JSON lines nginx's traffic log sends
// (templates.ts trafficLog): requests, bytes in and out, upstream errors (5xx) and 502s (the tunnel's
// client gone), and latency, in one bucket per minute for the last hour. Anything local may send to
// the traffic port, so a line is counted only within the bounds of what nginx can log (line.ts) and
// only for a name the panel wrote a vhost for (`know`, kept to the records by retention.ts): memory
// is bounded by the tunnels and sites, forged names never take a place nor reach /metrics, and a
// forged line of a real name moves its counts by at most one request's bounds. A line costs one parse
// and a Set lookup; lines not counted are counted by reason (`dropped`).
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import { boundedLine, lineJson, type TrafficLine } from './line.ts';

const MINUTE = 60_000;
const KEEP_MINUTES = 60;
/** Upper bounds of the latency buckets, in ms; the last counts everything slower. */
export const LATENCY_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, Infinity];

export const TrafficWindow = z.object({
  requests: z.number().int(),
  bytesIn: z.number().int(),
  bytesOut: z.number().int(),
  /** answers with a 5xx status */
  errors: z.number().int(),
  /** 502: nginx could not reach the upstream (a tunnel whose client is gone) */
  unreachable: z.number().int(),
  /** upper bound of the latency bucket holding the median and the 95th percentile; null without requests */
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
});
export type TrafficWindow = z.infer<typeof TrafficWindow>;
export const Traffic = z.object({
  lastMinute: TrafficWindow,
  lastHour: TrafficWindow,
  /** requests in each of the last 60 minutes, oldest first, the current minute last (the panel's sparkline) */
  perMinute: z.array(z.number().int()).length(KEEP_MINUTES),
});
export type Traffic = z.infer<typeof Traffic>;

export const TrafficMinute = z.object({
  /** ISO time the minute starts */
  start: z.string(),
  requests: z.number().int(),
  /** bytes from and to the clients (a stream tunnel's chart draws them: its sessions alone say little of a transfer) */
  bytesIn: z.number().int(),
  bytesOut: z.number().int(),
  /** answers with a 5xx status */
  errors: z.number().int(),
  /** upper bound of the latency bucket holding the minute's median and 95th percentile; null without requests */
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
});
export type TrafficMinute = z.infer<typeof TrafficMinute>;
/** The last hour of one vhost minute by minute, oldest first, the current minute last (the per-tunnel chart). */
export const TrafficSeries = z.array(TrafficMinute).length(KEEP_MINUTES);

interface Bucket {
  minute: number;
  requests: number;
  bytesIn: number;
  bytesOut: number;
  errors: number;
  unreachable: number;
  latency: number[];
}

/** Why lines were not counted: not a traffic line or out of bounds; a name the panel wrote no vhost for. */
export interface DroppedLines {
  invalid: number;
  unknownVhost: number;
}

export interface TrafficTotals {
  requests: number;
  bytesIn: number;
  bytesOut: number;
  errors: number;
  /** requests per LATENCY_MS bucket (not cumulative) and their summed seconds: /metrics' histogram */
  latency: number[];
  latencySeconds: number;
}

export class TrafficMeter {
  readonly #buckets = new Map<string, Bucket[]>();
  /** since the panel started, for /metrics counters */
  readonly #totals = new Map<string, TrafficTotals>();
  /** the vhost names the panel wrote; none until `know` is first called */
  #known: ReadonlySet<string> = new Set();
  readonly #dropped: DroppedLines = { invalid: 0, unknownVhost: 0 };
  #lines = 0;
  /** minute of the newest line; none yet counts as an hour before the clock's start */
  #lastLineMinute = -KEEP_MINUTES;

  constructor(private readonly clock: Clock) {}

  /** Counts one line; false when it is not counted (not a traffic line, out of bounds, or of an unknown name). */
  record(text: string): boolean {
    const json = lineJson(text);
    const name = typeof json === 'object' && json !== null ? (json as { v?: unknown }).v : undefined;
    // the name first: a forged name costs no schema check, and never takes a place in the maps
    if (typeof name === 'string' && !this.#known.has(name)) {
      this.#dropped.unknownVhost++;
      return false;
    }
    const line = boundedLine(json);
    if (!line) {
      this.#dropped.invalid++;
      return false;
    }
    let ring = this.#buckets.get(line.v);
    if (!ring) {
      this.#buckets.set(line.v, (ring = []));
      this.#totals.set(line.v, { requests: 0, bytesIn: 0, bytesOut: 0, errors: 0, latency: LATENCY_MS.map(() => 0), latencySeconds: 0 });
    }
    const ms = line.t * 1000;
    const slot = LATENCY_MS.findIndex((bound) => ms <= bound);
    const total = this.#totals.get(line.v)!;
    countInto(total, line, slot);
    total.latencySeconds = saturated(total.latencySeconds + line.t);
    const minute = Math.floor(this.clock.now() / MINUTE);
    this.#lines++;
    this.#lastLineMinute = minute;
    let bucket = ring.at(-1);
    if (!bucket || bucket.minute !== minute) {
      bucket = emptyBucket(minute);
      ring.push(bucket);
      while (ring.length > 0 && ring[0]!.minute <= minute - KEEP_MINUTES) ring.shift();
    }
    countInto(bucket, line, slot);
    if (line.s === 502) bucket.unreachable++;
    return true;
  }

  /**
   * Moves whenever an answer of `traffic()` may have changed: a line was counted, or a minute went by
   * while the last hour still held one. Live feeds compare it to push only then, never per request.
   */
  version(): number {
    // both terms only grow (with the clock), and one of them grows at each change
    return this.#lines + Math.min(Math.floor(this.clock.now() / MINUTE), this.#lastLineMinute + KEEP_MINUTES);
  }

  /**
   * The names the panel wrote vhosts for: from now on only their lines are counted, and every other
   * vhost's counts are forgotten (a deleted tunnel or site).
   */
  know(vhosts: ReadonlySet<string>): void {
    this.#known = vhosts;
    for (const vhost of this.#buckets.keys()) {
      if (vhosts.has(vhost)) continue;
      this.#buckets.delete(vhost);
      this.#totals.delete(vhost);
    }
  }

  /** The last minute (the current and the previous minute's bucket), the last hour and its requests per minute of a vhost. */
  traffic(vhost: string): Traffic {
    const now = Math.floor(this.clock.now() / MINUTE);
    const minute = emptyBucket(now);
    const hour = emptyBucket(now);
    const perMinute = new Array<number>(KEEP_MINUTES).fill(0);
    // one pass: a bucket of the last two minutes counts in both windows
    for (const b of this.#buckets.get(vhost) ?? []) {
      const slot = b.minute - now + KEEP_MINUTES - 1;
      if (slot < 0 || slot >= KEEP_MINUTES) continue;
      add(hour, b);
      if (b.minute >= now - 1) add(minute, b);
      perMinute[slot] = b.requests;
    }
    return { lastMinute: windowOf(minute), lastHour: windowOf(hour), perMinute };
  }

  /**
   * The last hour of a vhost per minute: requests, bytes each way, errors and latency percentiles, from the same
   * 60 buckets `traffic` reads (each already holds its minute's latency histogram), so it costs no memory.
   */
  series(vhost: string): TrafficMinute[] {
    const now = Math.floor(this.clock.now() / MINUTE);
    const byMinute = new Map((this.#buckets.get(vhost) ?? []).map((b) => [b.minute, b]));
    return Array.from({ length: KEEP_MINUTES }, (_, i) => {
      const minute = now - KEEP_MINUTES + 1 + i;
      const b = byMinute.get(minute);
      const start = new Date(minute * MINUTE).toISOString();
      if (!b) return { start, requests: 0, bytesIn: 0, bytesOut: 0, errors: 0, p50Ms: null, p95Ms: null };
      return { start, requests: b.requests, bytesIn: b.bytesIn, bytesOut: b.bytesOut, errors: b.errors, p50Ms: percentile(b.latency, b.requests, 0.5), p95Ms: percentile(b.latency, b.requests, 0.95) };
    });
  }

  /** Every vhost counted since the panel started, with its totals. */
  totals(): ReadonlyMap<string, Readonly<TrafficTotals>> {
    return this.#totals;
  }

  /** Lines not counted since the panel started, by reason. */
  dropped(): Readonly<DroppedLines> {
    return this.#dropped;
  }
}

/**
 * Byte and second sums stop at 2^53 - 1 rather than lose precision (or, before the bounds, become
 * Infinity): within the line bounds only forged lines get there (8,192 of 1 TiB on one name), and a
 * counter that stays put reads truer than one that goes back to 0, which Prometheus takes for a
 * restart. The per-minute windows start from 0 every minute anyway.
 */
function saturated(sum: number): number {
  return sum > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : sum;
}

/** One line into a window's or the totals' counts. */
function countInto(counts: Pick<Bucket, 'requests' | 'bytesIn' | 'bytesOut' | 'errors' | 'latency'>, line: TrafficLine, slot: number): void {
  counts.requests++;
  counts.bytesIn = saturated(counts.bytesIn + line.in);
  counts.bytesOut = saturated(counts.bytesOut + line.out);
  if (line.s >= 500) counts.errors++;
  counts.latency[slot]!++;
}

function emptyBucket(minute: number): Bucket {
  return { minute, requests: 0, bytesIn: 0, bytesOut: 0, errors: 0, unreachable: 0, latency: LATENCY_MS.map(() => 0) };
}

function add(into: Bucket, b: Bucket): void {
  into.requests += b.requests;
  into.bytesIn = saturated(into.bytesIn + b.bytesIn);
  into.bytesOut = saturated(into.bytesOut + b.bytesOut);
  into.errors += b.errors;
  into.unreachable += b.unreachable;
  for (let i = 0; i < b.latency.length; i++) into.latency[i]! += b.latency[i]!;
}

function windowOf(b: Bucket): TrafficWindow {
  const { requests, bytesIn, bytesOut, errors, unreachable, latency } = b;
  return { requests, bytesIn, bytesOut, errors, unreachable, p50Ms: percentile(latency, requests, 0.5), p95Ms: percentile(latency, requests, 0.95) };
}

function percentile(latency: number[], count: number, q: number): number | null {
  if (count === 0) return null;
  let seen = 0;
  for (let i = 0; i < latency.length; i++) {
    seen += latency[i]!;
    if (seen >= q * count) return Number.isFinite(LATENCY_MS[i]!) ? LATENCY_MS[i]! : LATENCY_MS.at(-2)!;
  }
  return null;
}
