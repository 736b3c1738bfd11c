// Progress of a command: a line per step for people, or one NDJSON object per step (`--json`).

export type StepStatus = 'done' | 'changed' | 'skipped' | 'failed' | 'warning';

export interface StepEvent {
  step: string;
  status: StepStatus;
  message: string;
  /** a fix or next action, when there is one */
  fix?: string;
  [extra: string]: unknown;
}

export interface Reporter {
  step(event: StepEvent): void;
  /** free text for people (next steps); in JSON mode it becomes a `summary` event */
  text(lines: string[], data?: Record<string, unknown>): void;
}

const MARK: Record<StepStatus, string> = { done: 'ok', changed: 'ok', skipped: '--', failed: '!!', warning: '!?' };

export function createReporter(json: boolean, write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Reporter {
  return {
    step(event) {
      if (json) return write(JSON.stringify({ time: new Date().toISOString(), ...event }));
      write(`[${MARK[event.status]}] ${event.step}: ${event.message}`);
      if (event.fix) write(`     fix: ${event.fix}`);
    },
    text(lines, data = {}) {
      if (json) write(JSON.stringify({ time: new Date().toISOString(), step: 'summary', status: 'done', message: lines.join('\n'), ...data }));
      else for (const line of lines) write(line);
    },
  };
}

const reported = new WeakSet<object>();

/** Marks an error whose step already printed it, so the command does not print it twice. */
export function reportedError<E extends Error>(error: E): E {
  reported.add(error);
  return error;
}

export function wasReported(error: unknown): boolean {
  return typeof error === 'object' && error !== null && reported.has(error);
}
