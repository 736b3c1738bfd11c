// Requests at a fixed rate, whatever the answers' speed, with each one's latency: a modest load
// whose latency percentiles can be compared between two conditions (autocannon's closed loop would
// send fewer requests when the server slows, and records whole milliseconds).
import { createClient } from './http.mjs';

export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * `ratePerSec` requests a second for `seconds`, taking `targets` ({key, url, headers, expect}) in
 * turn. Resolves with each target's sorted latencies (ms) and the answers that were not `expect`.
 */
export async function pacedRequests(targets, { ratePerSec, seconds }) {
  const client = createClient({ maxSockets: 16 });
  const byKey = Object.fromEntries(targets.map((t) => [t.key, { latencies: [], unexpected: [] }]));
  const pending = new Set();
  const one = (target) => {
    const started = performance.now();
    const request = client.request(target.url, { headers: target.headers }).then(
      (answer) => {
        byKey[target.key].latencies.push(performance.now() - started);
        if (answer.status !== target.expect) byKey[target.key].unexpected.push(`${answer.status} ${answer.text.slice(0, 120)}`);
      },
      (error) => byKey[target.key].unexpected.push(error.message),
    );
    pending.add(request);
    request.finally(() => pending.delete(request));
  };
  let sent = 0;
  const total = Math.round(ratePerSec * seconds);
  const started = performance.now();
  try {
    await new Promise((resolve) => {
      const timer = setInterval(() => {
        const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * ratePerSec));
        while (sent < due) one(targets[sent++ % targets.length]);
        if (sent >= total) {
          clearInterval(timer);
          resolve();
        }
      }, 1);
    });
    await Promise.all(pending);
  } finally {
    client.close();
  }
  for (const result of Object.values(byKey)) result.latencies.sort((a, b) => a - b);
  return { byKey, elapsedS: (performance.now() - started) / 1000 };
}
