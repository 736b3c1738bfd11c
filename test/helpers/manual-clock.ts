import type { Clock } from '../../lib/clock.ts';

/** A clock tests move by hand; `every` tasks fire as time passes. */
export class ManualClock implements Clock {
  #now: number;
  #tasks = new Set<{ every: number; next: number; task: () => void }>();

  constructor(start = Date.parse('2026-11-22T00:00:00Z')) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  every(ms: number, task: () => void): () => void {
    const entry = { every: ms, next: this.#now + ms, task };
    this.#tasks.add(entry);
    return () => this.#tasks.delete(entry);
  }

  /** Moves time forward, running due tasks in time order. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let due: { every: number; next: number; task: () => void } | undefined;
      for (const entry of this.#tasks) if (entry.next <= target && (!due || entry.next < due.next)) due = entry;
      if (!due) break;
      this.#now = due.next;
      due.next += due.every;
      due.task();
    }
    this.#now = target;
  }

  /**
   * Moves time forward at once, as a machine's clock does across a suspend: each task that came due
   * runs once, and its period starts again from the new time (what Node's setInterval does after a
   * stall). For long spans, where `advance` would run a 1 s task millions of times.
   */
  jump(ms: number): void {
    this.#now += ms;
    const due = [...this.#tasks].filter((entry) => entry.next <= this.#now).sort((a, b) => a.next - b.next);
    for (const entry of due) entry.next = this.#now + entry.every;
    for (const entry of due) if (this.#tasks.has(entry)) entry.task();
  }
}
