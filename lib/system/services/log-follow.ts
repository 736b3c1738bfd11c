// An async stream of log lines fed by a producer (a journalctl child, a tailed file, an in-memory
// journal). `close()` or leaving a for-await loop stops the producer.
import type { LogFollow, LogLine } from '../types.ts';

export interface LogProducer {
  push(line: LogLine): void;
  /** no more lines; pending readers finish (with the error, if any) */
  end(error?: Error): void;
}

export function createLogFollow(start: (producer: LogProducer) => () => void): LogFollow {
  const queue: LogLine[] = [];
  const waiters: Array<{ resolve: (r: IteratorResult<LogLine>) => void; reject: (e: Error) => void }> = [];
  let done = false;
  let failure: Error | null = null;
  let stop: (() => void) | null = null;

  const finish = (error?: Error) => {
    if (done) return;
    done = true;
    failure = error ?? null;
    for (const w of waiters.splice(0)) {
      if (failure) w.reject(failure);
      else w.resolve({ value: undefined, done: true });
    }
  };

  const close = () => {
    const s = stop;
    stop = null;
    finish();
    s?.();
  };

  stop = start({
    push(line) {
      if (done) return;
      const w = waiters.shift();
      if (w) w.resolve({ value: line, done: false });
      else queue.push(line);
    },
    end: finish,
  });
  if (done && stop) {
    // the producer ended synchronously: still release what it holds
    const s = stop;
    stop = null;
    s();
  }

  const iterator: AsyncIterator<LogLine> = {
    next() {
      const line = queue.shift();
      if (line) return Promise.resolve({ value: line, done: false });
      if (done) return failure ? Promise.reject(failure) : Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
    return() {
      close();
      return Promise.resolve({ value: undefined, done: true });
    },
  };
  return { [Symbol.asyncIterator]: () => iterator, close };
}
