// Where a start's time goes, step by step, when RELAY_PANEL_START_MARKS names a file: the process's
// CPU time and the time since it was spawned at each step, appended to that file as one JSON line
// once the server listens (`node test/bench/cold-start.mjs --scale --marks` reads them). Unset, a
// mark costs one comparison: no clock is read and nothing is kept. The variable is read at the
// first mark, not as the module loads: a startup snapshot evaluates this module with no
// environment of its own (lib/snapshot-entry.ts).
import { appendFileSync } from 'node:fs';

/** The file; null until the first mark reads the variable. */
let file: string | undefined | null = null;
const marks: Array<[step: string, cpuMs: number, wallMs: number]> = [];

const marksFile = () => (file === null ? (file = process.env.RELAY_PANEL_START_MARKS || undefined) : file);

export function startMark(step: string): void {
  if (!marksFile()) return;
  const { user, system } = process.cpuUsage();
  marks.push([step, (user + system) / 1000, process.uptime() * 1000]);
}

/** Appends the marks taken so far and forgets them (a restart in the same process marks afresh). */
export function writeStartMarks(): void {
  const to = marksFile();
  if (!to || marks.length === 0) return;
  appendFileSync(to, `${JSON.stringify(marks)}\n`);
  marks.length = 0;
}
