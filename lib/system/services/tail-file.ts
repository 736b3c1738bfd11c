// Follows a growing text file: the last `backlog` lines, then whatever is appended (polled, so it
// works on every filesystem). Lines starting with an ISO timestamp keep it. The polls are timed by
// the clock given (the app's), so a test moves them with a manual clock.
import { stat } from 'node:fs/promises';
import type { Clock } from '../../clock.ts';
import type { LogLine } from '../types.ts';
import { readFromOffset } from '../common/fs.ts';
import type { LogProducer } from './log-follow.ts';

const STAMPED = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}))\s+(.*)$/;

export function fileLine(line: string, now: () => number): LogLine {
  const m = STAMPED.exec(line);
  if (m) return { timestamp: new Date(m[1]!).toISOString(), message: m[2]! };
  return { timestamp: new Date(now()).toISOString(), message: line };
}

export function tailFile(path: string, backlog: number, clock: Clock, pollMs = 250) {
  const now = () => clock.now();
  return (producer: LogProducer): (() => void) => {
    let offset = 0;
    let partial = '';
    let stopped = false;
    // a poll runs from the first read's end, and never beside another (a slow disk skips ticks)
    let ready = false;
    let polling = false;

    const readFrom = async (from: number): Promise<string> => {
      const { text, size } = await readFromOffset(path, from);
      offset = size;
      return text;
    };
    const emit = (text: string, limit?: number) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      const out = lines.filter((l) => l.trim() !== '');
      for (const l of limit === undefined ? out : out.slice(-limit)) producer.push(fileLine(l, now));
    };
    const poll = async () => {
      if (stopped || !ready || polling) return;
      polling = true;
      try {
        const { size } = await stat(path);
        if (size !== offset && !stopped) emit(await readFrom(offset));
      } catch {
        // the file may not exist yet
      } finally {
        polling = false;
      }
    };
    const stop = clock.every(pollMs, () => void poll());
    readFrom(0)
      .then((text) => emit(text, backlog))
      .catch(() => {})
      .finally(() => (ready = true));
    return () => {
      stopped = true;
      stop();
    };
  };
}
