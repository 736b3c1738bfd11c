// A route's requests after its module loaded on first use (handlers/start-table.ts) against the
// same route loaded up front (handlers/index.ts): in-process CPU per request of two test-kit apps,
// rounds alternating, so the load of others falls on both alike. The first round of the lazy app
// includes its modules' loading.
//   node --import ./test/helpers/register.mjs test/bench/lazy-route-requests.ts
import { loadavg } from 'node:os';
import { routes as loaded } from '../../handlers/index.ts';
import { routes as startTable } from '../../handlers/start-table.ts';
import { createTestApp } from '../../lib/testing.ts';

const REQUESTS = 4000;
const ROUNDS = 7;
const PATHS = ['/api/health', '/api/tunnels'];

const apps = { 'loaded up front': await createTestApp({ routes: loaded, seed: { onboarded: true } }), 'loaded on first use': await createTestApp({ routes: startTable, seed: { onboarded: true } }) };
const headers = apps['loaded up front'].as.admin();
const perRequest: Record<string, number[]> = {};
const loads: number[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    loads.push(loadavg()[0]!);
    for (const path of PATHS) {
      for (const [name, app] of Object.entries(apps)) {
        const before = process.cpuUsage();
        for (let i = 0; i < REQUESTS; i++) {
          const response = await app.fetch(path, { headers });
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`${name}: GET ${path} answered ${response.status}`);
        }
        const used = process.cpuUsage(before);
        (perRequest[`GET ${path}, ${name}`] ??= []).push((used.user + used.system) / REQUESTS);
      }
    }
  }
} finally {
  for (const app of Object.values(apps)) await app.close();
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
for (const [name, values] of Object.entries(perRequest)) console.log(`${name}: ${median(values).toFixed(1)} µs of CPU per request (median of ${ROUNDS} rounds of ${REQUESTS})`);
console.log(`load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)}`);
