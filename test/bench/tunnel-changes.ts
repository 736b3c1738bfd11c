// `npm run bench -- --only=tunnel-changes`: a tunnel's create, toggle and delete end to end through
// the API, on real nginx (test/infra/harness.ts: nginx, pebble + certbot, dnsmasq on loopback), with
// its certificate already in place (so no ACME order is timed: the figure is the vhost, the authfile
// and the record), at 10 and at 1,000 tunnel vhosts, and ten toggles sent at once. One certificate
// is issued by pebble; the other names get copies of its lineage (nginx does not check names).
// Figures are medians of ROUNDS, each size beside the other in one run, with the load average.
// Run alone: node --import ./test/helpers/register.mjs test/bench/tunnel-changes.ts [--sizes=10,1000] [--rounds=3]
import { cp, mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_VHOST } from '../../lib/host-state/vhost-specs.ts';
import type { TunnelRecord } from '../../lib/state/schemas.ts';
import { putVhost } from '../../lib/tunnels/context.ts';
import { createTestApp, type TestApp } from '../../lib/testing.ts';
import { startInfra, TEST_DOMAIN } from '../infra/harness.ts';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const SIZES = arg('sizes', '10,1000').split(',').map(Number).sort((a, b) => a - b);
const ROUNDS = Number(arg('rounds', '3'));
const CONCURRENT = 10;
const FAKE_SYSTEMCTL = fileURLToPath(new URL('../fakes/bin/systemctl', import.meta.url));
const load1 = () => (loadavg()[0] ?? 0).toFixed(2);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function timed<T>(what: () => Promise<{ status: number; body: T }>, want: number): Promise<{ ms: number; body: T }> {
  const at = performance.now();
  const answer = await what();
  const ms = performance.now() - at;
  if (answer.status !== want) throw new Error(`expected ${want}, got ${answer.status}: ${JSON.stringify(answer.body)}`);
  return { ms, body: answer.body };
}

const infra = await startInfra();
process.env.FAKE_ARGV_LOG = join(infra.dir, 'systemctl-argv.log');
process.env.FAKE_SYSTEMD_STATE = join(infra.dir, 'systemd-state.json');
const system = infra.systemConfig({ binaries: { systemctl: FAKE_SYSTEMCTL }, nginx: { reloadTimeoutMs: 120_000 }, timeouts: { defaultMs: 120_000 } });
let t: TestApp | undefined;
try {
  t = await createTestApp({ config: { ip: '127.0.0.1', system } });
  const app = t;
  await app.completeOnboarding(TEST_DOMAIN, `ops@${TEST_DOMAIN}`);
  await app.services.system.proxy.apply([{ op: 'put', spec: DEFAULT_VHOST, enabled: true }]);
  let port = 20_000;
  // the one real order: pebble's certificate for base.<domain>
  const base = await timed(() => app.call('POST', '/api/tunnels', { body: { subdomain: 'base', port: port++ } }), 201);
  const live = join(system.acme.configDir, 'live');
  const certFor = async (subdomain: string) => {
    await mkdir(live, { recursive: true });
    await cp(join(live, `base.${TEST_DOMAIN}`), join(live, `${subdomain}.${TEST_DOMAIN}`), { recursive: true, dereference: true });
  };

  /** Tunnels seeded straight into the records and nginx in one change, each with a certificate in place. */
  const seeded: TunnelRecord[] = [(base.body as { tunnel: TunnelRecord }).tunnel];
  async function growTo(size: number) {
    const more: TunnelRecord[] = [];
    for (let i = seeded.length; i < size; i++) {
      const subdomain = `s${i}`;
      await certFor(subdomain);
      more.push({ id: crypto.randomUUID(), subdomain, fqdn: `${subdomain}.${TEST_DOMAIN}`, port: port++, description: '', enabled: true, createdAt: new Date().toISOString() });
    }
    const at = performance.now();
    await app.services.system.proxy.apply(more.map((x) => putVhost(x, true)));
    await app.services.store.tunnels.edit((draft) => { for (const x of more) draft.put(x); });
    seeded.push(...more);
    console.log(`  ${size} vhosts: ${more.length} seeded in one change in ${((performance.now() - at) / 1000).toFixed(2)} s`);
  }

  const rows: string[] = [];
  const figures = new Map<string, number>();
  console.log(`tunnel-changes: create, toggle and delete through the API on real nginx with the certificate in place (median of ${ROUNDS})`);
  for (const size of SIZES) {
    await growTo(size);
    const create: number[] = [], disable: number[] = [], enable: number[] = [], remove: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const subdomain = `m${size}-${round}`;
      await certFor(subdomain);
      const made = await timed(() => app.call('POST', '/api/tunnels', { body: { subdomain, port: port++ } }), 201);
      create.push(made.ms);
      const id = (made.body as { tunnel: TunnelRecord }).tunnel.id;
      disable.push((await timed(() => app.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: false } }), 200)).ms);
      enable.push((await timed(() => app.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: true } }), 200)).ms);
      remove.push((await timed(() => app.call('DELETE', `/api/tunnels/${id}`), 200)).ms);
    }
    // ten toggles of ten tunnels sent at once: when each answers, the last one's time is the figure
    const load = load1();
    const at = performance.now();
    const answers = await Promise.all(seeded.slice(0, CONCURRENT).map(async (x) => {
      const r = await app.call('PATCH', `/api/tunnels/${x.id}`, { body: { enabled: false } });
      if (r.status !== 200) throw new Error(`concurrent toggle: ${r.status} ${JSON.stringify(r.body)}`);
      return performance.now() - at;
    }));
    for (const x of seeded.slice(0, CONCURRENT)) await app.call('PATCH', `/api/tunnels/${x.id}`, { body: { enabled: true } });
    const result = { create: median(create), disable: median(disable), enable: median(enable), delete: median(remove), concurrentLast: Math.max(...answers), concurrentMedian: median(answers) };
    for (const [k, v] of Object.entries(result)) figures.set(`${size} ${k}`, v);
    rows.push(`  ${String(size).padStart(5)} vhosts: create ${result.create.toFixed(0)} ms, disable ${result.disable.toFixed(0)} ms, enable ${result.enable.toFixed(0)} ms, delete ${result.delete.toFixed(0)} ms; ` +
      `${CONCURRENT} toggles at once: median ${result.concurrentMedian.toFixed(0)} ms, last ${result.concurrentLast.toFixed(0)} ms (load ${load})`);
  }
  for (const row of rows) console.log(row);
  const [small, large] = [SIZES[0], SIZES.at(-1)];
  if (small !== large) {
    const ratio = (k: string) => ((figures.get(`${large} ${k}`) ?? NaN) / (figures.get(`${small} ${k}`) ?? NaN)).toFixed(2);
    console.log(`  ${large} / ${small} vhosts: create ${ratio('create')}x, disable ${ratio('disable')}x, enable ${ratio('enable')}x, delete ${ratio('delete')}x, ten at once (last) ${ratio('concurrentLast')}x`);
  }
} finally {
  await t?.close();
  await infra.stop();
}
