// A reload's real outcome. `nginx -s reload` (and systemctl's reload) only signal the master and
// exit 0; the master then reads every vhost again (2.8-3.9 s at 1,000 vhosts), and either starts
// new worker processes (the new configuration runs) or logs why not and keeps the old one. So
// the outcome is whichever shows first: a child of the master that was not there before the
// signal, or an [emerg]/[alert] line the master itself logged since.
import { SystemError } from '../types.ts';

export interface ReloadProbe {
  /** the master's children now; null when the master is gone */
  children(): Promise<number[] | null>;
  /** error log lines appended since the last look (the first look: since before the signal) */
  lines(): Promise<string[]>;
}

export interface ReloadTiming {
  /** no outcome by then: the reload counts as failed */
  timeoutMs: number;
  pollMs: number;
  /**
   * a failure is answered once the master has logged nothing new for this long: nginx retries a
   * refused bind() every 500 ms, five times, logging each, and a reload asked before it is done
   * would read those lines as its own
   */
  settleMs: number;
}

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

export type ReloadOutcome = { ok: true } | { ok: false; problem: string };

/** `before`: the master's children before the signal; `master`: its pid, whose log lines count. */
export async function reloadOutcome(master: number, before: readonly number[], probe: ReloadProbe, timing: ReloadTiming, clock: Clock = realClock): Promise<ReloadOutcome> {
  const known = new Set(before);
  const deadline = clock.now() + timing.timeoutMs;
  const problems: string[] = [];
  let lastProblemAt = 0;
  for (;;) {
    // children first: a master that has started new workers has taken the configuration, whatever
    // it logged on the way (the old workers' farewells come after the new ones start)
    const children = await probe.children();
    if (children === null) return failed([...problems, `nginx's master process ${master} exited`]);
    if (children.some((pid) => !known.has(pid))) return { ok: true };
    const found = masterProblems(await probe.lines(), master);
    if (found.length > 0) {
      problems.push(...found.filter((p) => !problems.includes(p)));
      lastProblemAt = clock.now();
    }
    if (problems.length > 0 && clock.now() - lastProblemAt >= timing.settleMs) return failed(problems);
    if (clock.now() >= deadline) return failed(problems.length > 0 ? problems : [`no new worker processes within ${timing.timeoutMs} ms`]);
    await clock.sleep(timing.pollMs);
  }
}

function failed(problems: string[]): ReloadOutcome {
  return { ok: false, problem: problems.join('; ') };
}

/** nginx's words from its [emerg] and [alert] lines; `pid`: only the lines that process logged (null: any). */
export function masterProblems(lines: readonly string[], pid: number | null): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const m = /\[(emerg|alert)\] (\d+)#\d+: (.*)$/.exec(line);
    if (m && (pid === null || Number(m[2]) === pid)) out.push(m[3]!.trim());
  }
  return out;
}

/** The outcome as the adapters report it: a failed reload is a SystemError in nginx's words. */
export function throwIfFailed(outcome: ReloadOutcome): void {
  if (!outcome.ok) throw new SystemError(`nginx reload failed: ${outcome.problem}`, 'nginx', outcome.problem);
}
