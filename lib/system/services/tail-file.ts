// Follows a growing text file: the last `backlog` lines, then whatever is appended (polled, so it
// works on every filesystem). Lines starting with an ISO timestamp keep it.
import { stat } from 'node:fs/promises';
import type { LogLine } from '../types.ts';
import { readFromOffset } from '../common/fs.ts';
import type { LogProducer } from './log-follow.ts';

const STAMPED = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}))\s+(.*)$/;

export function fileLine(line: string, now: () => number): LogLine {
  const m = STAMPED.exec(line);
  if (m) return { timestamp: new Date(m[1]!).toISOString(), message: m[2]! };
  return { timestamp: new Date(now()).toISOString(), message: line };
}

export function tailFile(path: string, backlog: number, now: () => number, pollMs = 250) {
  return (producer: LogProducer): (() => void) => {
    let offset = 0;
    let partial = '';
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;

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
      if (stopped) return;
      try {
        const { size } = await stat(path);
        if (size !== offset) emit(await readFrom(offset));
      } catch {
        // the file may not exist yet
      }
      if (!stopped) timer = setTimeout(poll, pollMs);
    };
    readFrom(0)
      .then((text) => emit(text, backlog))
      .catch(() => {})
      .finally(() => {
        if (!stopped) timer = setTimeout(poll, pollMs);
      });
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  };
}
