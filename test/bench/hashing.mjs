// Health latency while portal users are created: bcrypt at cost 12 costs about a second of CPU per
// hash, and must not hold the event loop (it runs on a worker thread, lib/users/password-hasher.ts).
import { createClient } from './http.mjs';
import { percentile } from './paced.mjs';
import { adminHeaders } from './seed.mjs';

/** Sends GET /api/health from `loops` sequential loops until `until` settles; returns the latencies (ms). */
async function sampleHealth(url, loops, until) {
  const client = createClient({ maxSockets: loops });
  const latencies = [];
  let done = false;
  until.finally(() => (done = true));
  const loop = async () => {
    while (!done) {
      const started = performance.now();
      const res = await client.request(`${url}/api/health`);
      if (res.status !== 200) throw new Error(`GET /api/health: ${res.status}`);
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  try {
    await Promise.all(Array.from({ length: loops }, loop));
  } finally {
    client.close();
  }
  return latencies.sort((a, b) => a - b);
}

const summary = (latencies) => ({
  samples: latencies.length,
  p50Ms: percentile(latencies, 50),
  p99Ms: percentile(latencies, 99),
  maxMs: latencies.at(-1),
});

/**
 * `creates` concurrent POST /api/users (each answered after its bcrypt hash, database write and
 * portal restart) while two loops poll GET /api/health; then the same polling for as long with no
 * creates, as the baseline of this machine at this moment.
 */
export async function healthWhileHashing(panel, { creates = 4, round = 1 } = {}) {
  const client = createClient({ maxSockets: creates });
  const started = performance.now();
  const createMs = [];
  const statuses = {};
  const work = Promise.all(
    Array.from({ length: creates }, async (_, i) => {
      const t0 = performance.now();
      const res = await client.request(`${panel.url}/api/users`, {
        method: 'POST',
        headers: adminHeaders(),
        body: { username: `bench-${round}-${i}`, displayname: `Bench ${i}`, email: `bench-${i}@bench.test`, password: `bench-password-${i}` },
        timeoutMs: 60_000,
      });
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      createMs.push(performance.now() - t0);
    }),
  ).finally(() => client.close());
  const during = await sampleHealth(panel.url, 2, work);
  await work;
  const elapsedMs = performance.now() - started;
  const idle = await sampleHealth(panel.url, 2, new Promise((r) => setTimeout(r, elapsedMs)));
  return { creates, statuses, createMs: createMs.sort((a, b) => a - b), elapsedMs, during: summary(during), idle: summary(idle) };
}
