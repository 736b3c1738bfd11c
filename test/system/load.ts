// A client that keeps requesting while something happens on the box (an upgrade, a restart), and
// reports every request that did not get its 200: the measure of "no request lost".
import type { BoxClient, Identity } from './client.ts';

export interface LoadReport {
  requests: number;
  failures: string[];
  /** the longest time one request waited for its answer, ms */
  longestMs: number;
}

const CLIENTS = 2;
/** Requests answered before the switch (so the measure starts on a working box) and after it: counted, not timed. */
const AROUND = 10;

export async function underLoad<T>(client: BoxClient, urls: string[], identity: Identity, during: () => Promise<T>): Promise<{ result: T; report: LoadReport }> {
  const report: LoadReport = { requests: 0, failures: [], longestMs: 0 };
  let running = true;
  const loop = async (offset: number) => {
    for (let i = offset; running; i++) {
      const url = urls[i % urls.length]!;
      const started = performance.now();
      try {
        const r = await client.call('GET', url, { identity, timeoutMs: 30_000 });
        if (r.status !== 200) report.failures.push(`${url}: ${r.status} ${r.text.slice(0, 120)}`);
      } catch (e) {
        report.failures.push(`${url}: ${(e as Error).message}`);
      }
      report.requests++;
      report.longestMs = Math.max(report.longestMs, Math.round(performance.now() - started));
    }
  };
  const loops = Array.from({ length: CLIENTS }, (_, i) => loop(i));
  const answered = async (count: number) => {
    while (report.requests < count) await new Promise((r) => setTimeout(r, 20));
  };
  let result: T;
  try {
    await answered(AROUND);
    result = await during();
    await answered(report.requests + AROUND);
  } finally {
    running = false;
    await Promise.all(loops);
  }
  return { result, report };
}
