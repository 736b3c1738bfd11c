// Bundled and run by test/bench/metrics.mjs: the CPU the metrics add to one request, in one
// process without sockets, so the difference is not lost in a load run's noise. Two apps alike but
// for `metrics.enabled`, called in alternating rounds; and the route tally's `record` alone.
import { RequestMetrics } from '../../lib/metrics/request-metrics.ts';
import { createTestApp, type TestApp } from '../../lib/testing.ts';

const ROUNDS = 10;
const PER_ROUND = 50_000;

function cpuNs(): bigint {
  const { user, system } = process.cpuUsage();
  return BigInt(user + system) * 1000n;
}

async function round(kit: TestApp): Promise<number> {
  // one request object for every call: building Requests would cost more than what is measured
  const request = new Request('http://panel/api/tunnels', { headers: kit.as.admin() });
  const before = cpuNs();
  for (let i = 0; i < PER_ROUND; i++) {
    // the cached list: the whole chain runs (certificate, gate, capability), with little else
    const response = await kit.app.handle(request, {});
    if (response.status !== 200) throw new Error(`GET /api/tunnels: ${response.status}`);
  }
  return Number(cpuNs() - before) / PER_ROUND;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// No top-level await: build/build.mjs bundles as CommonJS.
async function main(): Promise<void> {
  const seed = { onboarded: true };
  const on = await createTestApp({ seed, config: { metrics: { enabled: true } } });
  const off = await createTestApp({ seed, config: { metrics: { enabled: false } } });
  const rounds = { on: [] as number[], off: [] as number[] };
  await round(on);
  await round(off);
  for (let i = 0; i < ROUNDS; i++) {
    // alternating which goes first, so a warming or a busier machine weighs on both
    const order = i % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
    for (const name of order) rounds[name].push(await round(name === 'on' ? on : off));
  }
  await on.close();
  await off.close();

  const tally = new RequestMetrics().route('GET', '/api/tunnels');
  const records = 1_000_000;
  const before = cpuNs();
  for (let i = 0; i < records; i++) tally.record(i & 3 ? 200 : 404, 0.0003 + (i & 7) * 0.001);
  const recordNs = Number(cpuNs() - before) / records;

  // each round's pair ran back to back: the median of their differences cancels the machine's drift
  const pairedNs = rounds.on.map((ns, i) => ns - rounds.off[i]!);
  console.log(JSON.stringify({ requestsPerRound: PER_ROUND, nsOn: rounds.on, nsOff: rounds.off, medianNsOn: median(rounds.on), medianNsOff: median(rounds.off), medianPairedNs: median(pairedNs), recordNs }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
