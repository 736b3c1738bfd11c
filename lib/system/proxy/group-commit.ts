// Group commit of vhost changes: every change ends with `nginx -t` and a reload over every vhost
// (1.6-2.1 s and 2.8-3.9 s at 1,000 vhosts), so changes that arrive while one batch runs wait
// together and go as one batch, one test and one reload for all of them. A lone change goes at
// once (nothing waits for company). When a joined batch fails, each of its callers' changes is
// tried alone, so one bad change fails only its own caller.
import type { VhostChange } from '../types.ts';

interface Waiting {
  changes: VhostChange[];
  resolve(): void;
  reject(e: unknown): void;
}

/**
 * `run`: one batch, to completion or a throw with everything it touched put back (VhostStore's
 * apply, the root helper's vhosts action). `max`: at most this many changes joined in one batch
 * (a caller's own list is never split).
 */
export function groupCommit(run: (changes: VhostChange[]) => Promise<void>, max: number): (changes: VhostChange[]) => Promise<void> {
  const waiting: Waiting[] = [];
  let draining = false;

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (waiting.length > 0) {
        const batch = [waiting.shift()!];
        let size = batch[0]!.changes.length;
        while (waiting.length > 0 && size + waiting[0]!.changes.length <= max) {
          size += waiting[0]!.changes.length;
          batch.push(waiting.shift()!);
        }
        await commit(batch);
      }
    } finally {
      draining = false;
    }
  }

  async function commit(batch: Waiting[]): Promise<void> {
    try {
      await run(batch.flatMap((w) => w.changes));
      for (const w of batch) w.resolve();
      return;
    } catch (e) {
      if (batch.length === 1) return batch[0]!.reject(e);
    }
    for (const w of batch) {
      try {
        await run(w.changes);
        w.resolve();
      } catch (e) {
        w.reject(e);
      }
    }
  }

  return (changes) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ changes, resolve, reject });
      if (!draining) void drain();
    });
}
