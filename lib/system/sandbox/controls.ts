// The sandbox's test levers: failure injection, recorded events, DNS records, unit states, journals.
import type { LogLine, ServiceName, ServiceStatus, System } from '../types.ts';
import { SystemError } from '../types.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fn = (...args: any[]) => unknown;
type MethodNames<T> = { [K in keyof T]: T[K] extends Fn ? K : never }[keyof T] & string;

/**
 * Where a failure can be injected: any adapter method (`certs.issue`, `authPortal.restart`, ...)
 * plus `proxy.test`, the configuration test inside `proxy.apply` (files are written, then
 * restored: the rollback path of a failed `nginx -t`).
 */
export type FailurePoint = { [A in keyof System]: `${A}.${MethodNames<System[A]>}` }[keyof System] | 'proxy.test';

export interface SandboxEvent {
  at: number;
  /** e.g. `proxy.apply`, `proxy.reload`, `authPortal.restart`, `services.control` */
  op: string;
  detail?: unknown;
}

/** How many events, and lines per journal, the sandbox keeps. */
const MAX_KEPT = 1000;

interface UnitState {
  status: ServiceStatus['status'];
  since: number;
}

export class SandboxControls {
  readonly events: SandboxEvent[] = [];
  private readonly failures = new Map<string, string[]>();
  private readonly dnsRecords = new Map<string, string[]>();
  readonly units = new Map<ServiceName, UnitState>();
  private readonly journals = new Map<ServiceName, LogLine[]>();
  private readonly listeners = new Map<ServiceName, Set<(line: LogLine) => void>>();

  constructor(private readonly now: () => number, initialDns: Record<string, string[]>) {
    for (const [name, ips] of Object.entries(initialDns)) this.dnsRecords.set(normalize(name), [...ips]);
    const t = now();
    this.units.set('proxy', { status: 'active', since: t });
    this.units.set('panel', { status: 'active', since: t });
    this.units.set('tunnel-server', { status: 'inactive', since: t });
    this.units.set('auth-portal', { status: 'inactive', since: t });
  }

  /** The next `times` calls at `point` reject with a SystemError carrying `message`. */
  failNext(point: FailurePoint, message = `injected failure at ${point}`, times = 1): void {
    const queue = this.failures.get(point) ?? [];
    for (let i = 0; i < times; i++) queue.push(message);
    this.failures.set(point, queue);
  }

  clearFailures(): void {
    this.failures.clear();
  }

  /** Throws the injected failure for `point`, if one is pending. */
  checkFailure(point: FailurePoint): void {
    const queue = this.failures.get(point);
    const message = queue?.shift();
    if (queue && queue.length === 0) this.failures.delete(point);
    if (message !== undefined) throw new SystemError(message, 'sandbox', undefined, 'injected');
  }

  /** Keeps the last MAX_KEPT events, as journals keep their last MAX_KEPT lines. */
  record(op: string, detail?: unknown): void {
    this.events.push({ at: this.now(), op, detail });
    if (this.events.length > MAX_KEPT) this.events.splice(0, this.events.length - MAX_KEPT);
  }

  /** Recorded events, optionally only those of one operation. */
  eventsOf(op: string): SandboxEvent[] {
    return this.events.filter((e) => e.op === op);
  }

  /**
   * `name` and its subdomains resolve to `ips`; `[]` makes them not resolve; `null` removes the
   * record so the context resolver answers again. The most specific record wins.
   */
  setDns(name: string, ips: string[] | null): void {
    if (ips === null) this.dnsRecords.delete(normalize(name));
    else this.dnsRecords.set(normalize(name), [...ips]);
  }

  dnsRecord(name: string): string[] | undefined {
    let n = normalize(name);
    for (;;) {
      const hit = this.dnsRecords.get(n);
      if (hit) return [...hit];
      const dot = n.indexOf('.');
      if (dot < 0) return undefined;
      n = n.slice(dot + 1);
    }
  }

  setServiceStatus(name: ServiceName, status: ServiceStatus['status']): void {
    const prev = this.units.get(name);
    this.units.set(name, { status, since: prev?.status === status ? prev.since : this.now() });
  }

  appendLog(name: ServiceName, message: string): void {
    const line = { timestamp: new Date(this.now()).toISOString(), message };
    const journal = this.journals.get(name) ?? [];
    journal.push(line);
    if (journal.length > MAX_KEPT) journal.splice(0, journal.length - MAX_KEPT);
    this.journals.set(name, journal);
    for (const l of this.listeners.get(name) ?? []) l(line);
  }

  journal(name: ServiceName, backlog: number): LogLine[] {
    // slice(-0) would be the whole journal
    return backlog > 0 ? (this.journals.get(name) ?? []).slice(-backlog) : [];
  }

  subscribe(name: ServiceName, listener: (line: LogLine) => void): () => void {
    const set = this.listeners.get(name) ?? new Set();
    set.add(listener);
    this.listeners.set(name, set);
    return () => set.delete(listener);
  }

  listenerCount(name: ServiceName): number {
    return this.listeners.get(name)?.size ?? 0;
  }
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}
