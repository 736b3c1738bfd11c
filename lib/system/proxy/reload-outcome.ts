// A reload's real outcome. `nginx -s reload` (and systemctl's reload) only signal the master and
// exit 0; the master then reads every vhost again (2.8-3.9 s at 1,000 vhosts), and either starts
// new worker processes (the new configuration runs) or logs why not and keeps the old one. So
// the outcome is whichever shows first: a child of the master that was not there before the
// signal, or an [emerg]/[alert] line the master itself logged since. New workers are not yet the
// end: the master sleeps 100 ms after starting them before it tells the old ones to quit, and until
// then an old worker still accepts connections with the old configuration. So a reload is done once
// every old worker is gone or titled "worker process is shutting down" (it closes its listening
// sockets right after); one whose title cannot be read (hidden by the root helper's ProtectProc)
// is taken as told HIDDEN_GRACE_MS after the new workers were seen.
import { SystemError } from '../types.ts';

export interface ReloadProbe {
  /** the master's children now; null when the master is gone */
  children(): Promise<number[] | null>;
  /** error log lines appended since the last look (the first look: since before the signal) */
  lines(): Promise<string[]>;
  /** whether an old worker has been told to quit (its title says so); null when its title cannot be read */
  shuttingDown?(pid: number): Promise<boolean | null>;
}

/** The master's 100 ms between starting new workers and telling the old ones to quit, with room to spare. */
export const HIDDEN_GRACE_MS = 300;

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

/** Wall time and waiting: nginx works on the wall clock (lib/clock.ts's Clock has timers, not waits). */
export interface WaitClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const wallClock: WaitClock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

export type ReloadOutcome = { ok: true } | { ok: false; problem: string };

/** `before`: the master's children before the signal; `master`: its pid, whose log lines count. */
export async function reloadOutcome(master: number, before: readonly number[], probe: ReloadProbe, timing: ReloadTiming, clock: WaitClock = wallClock): Promise<ReloadOutcome> {
  const known = new Set(before);
  const deadline = clock.now() + timing.timeoutMs;
  const problems: string[] = [];
  let lastProblemAt = 0;
  let newSeenAt: number | null = null;
  for (;;) {
    // children first: a master that has started new workers has taken the configuration, whatever
    // it logged on the way (the old workers' farewells come after the new ones start)
    const children = await probe.children();
    if (children === null) return failed([...problems, `nginx's master process ${master} exited`]);
    if (children.some((pid) => !known.has(pid))) {
      newSeenAt ??= clock.now();
      if (await oldOnesToldToQuit(children.filter((pid) => known.has(pid)), probe, clock.now() - newSeenAt)) return { ok: true };
      if (clock.now() >= deadline) return failed([`the old worker processes were not told to quit within ${timing.timeoutMs} ms`]);
      await clock.sleep(timing.pollMs);
      continue;
    }
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

/** `old`: the workers from before the signal that are still the master's children; `sinceNewMs`: since new ones were seen. */
async function oldOnesToldToQuit(old: readonly number[], probe: ReloadProbe, sinceNewMs: number): Promise<boolean> {
  for (const pid of old) {
    const told = probe.shuttingDown ? await probe.shuttingDown(pid) : null;
    if (told === false || (told === null && sinceNewMs < HIDDEN_GRACE_MS)) return false;
  }
  return true;
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
