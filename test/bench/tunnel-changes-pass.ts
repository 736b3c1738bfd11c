// One pass of `--only=tunnel-changes` (tunnel-changes.ts) in one certificate mode, on its own
// infrastructure and panel, so that neither mode's vhosts are in the other's nginx -t.
// Per-name: every name has its own lineage (copies of the one pebble issued). Wildcard: the lineage
// of the base domain (a copy of the same certificate) serves every tunnel, and no tunnel has one of
// its own; the mode is saved in the configuration as the switch saves it, the vhosts it decides
// about are rewritten as the switch rewrites them, and the served vhosts of the desired host state
// are written, so a vhost a mode calls for besides the tunnels is there as on a real box.
import { access, cp, mkdir, readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentialKeys } from '../../lib/certs/dns01/providers.ts';
import { servedSpecs } from '../../lib/certs/dns01/served-specs.ts';
import { desiredHost } from '../../lib/host-state/desired.ts';
import { appVhost, tunnelsVhost } from '../../lib/host-state/vhost-specs.ts';
import type { TunnelRecord } from '../../lib/state/schemas.ts';
import { isRouteText, vhostName } from '../../lib/system/proxy/templates.ts';
import { putVhost } from '../../lib/tunnels/context.ts';
import { createTestApp, type TestApp } from '../../lib/testing.ts';
import { startInfra, TEST_DOMAIN } from '../infra/harness.ts';

export type CertMode = 'per-name' | 'wildcard';
export const FIGURES = ['create', 'disable', 'enable', 'delete', 'concurrentMedian', 'concurrentLast'] as const;
export type Figures = Record<(typeof FIGURES)[number], number>;
export interface Row { mode: CertMode; size: number; figures: Figures; load: string }

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

/** The served vhosts of the desired host state in the panel's present mode, written and linked. */
/** The served vhosts, and the shared tunnels' server as onboarding's vhosts task writes it (this box's stack has no certificates). */
async function applyServed(app: TestApp): Promise<void> {
  const { served } = await desiredHost(app.services);
  const shared = served.some((spec) => spec.kind === 'tunnels') ? [] : [tunnelsVhost(TEST_DOMAIN, app.services.config.value)];
  await app.services.system.proxy.apply([...served, ...shared].map((spec) => ({ op: 'put', spec, enabled: true })));
}

export async function measureMode(mode: CertMode, sizes: number[], rounds: number, concurrent: number): Promise<Row[]> {
  const infra = await startInfra();
  process.env.FAKE_ARGV_LOG = join(infra.dir, 'systemctl-argv.log');
  process.env.FAKE_SYSTEMD_STATE = join(infra.dir, 'systemd-state.json');
  const system = infra.systemConfig({ binaries: { systemctl: FAKE_SYSTEMCTL }, nginx: { reloadTimeoutMs: 120_000 }, timeouts: { defaultMs: 120_000 } });
  let t: TestApp | undefined;
  try {
    t = await createTestApp({ config: { ip: '127.0.0.1', system } });
    const app = t;
    await app.completeOnboarding(TEST_DOMAIN, `ops@${TEST_DOMAIN}`);
    await applyServed(app);
    let port = 20_000;
    // the one real order (per-name, through HTTP-01): pebble's certificate for base.<domain>
    const base = await timed(() => app.call('POST', '/api/tunnels', { body: { subdomain: 'base', port: port++ } }), 201);
    const live = join(system.acme.configDir, 'live');
    const copyLineage = async (name: string) => {
      await mkdir(live, { recursive: true });
      await cp(join(live, `base.${TEST_DOMAIN}`), join(live, name), { recursive: true, dereference: true });
    };
    const config = app.services.config;
    if (mode === 'wildcard') {
      await copyLineage(TEST_DOMAIN);
      await config.update({ certificateMode: { mode: 'wildcard', provider: 'rfc2136', lineage: TEST_DOMAIN, propagationSeconds: null, keysSet: credentialKeys('rfc2136') } });
      // as the switch does: the served vhosts the mode calls for (its shared server), then the tunnels rewritten
      await applyServed(app);
      const { tunnels, sites } = app.services.store;
      await app.services.system.proxy.refresh(servedSpecs({ tunnels: tunnels.value, sites: sites.value }, config.value));
    }
    // a name of its own only where the mode does not cover it (in wildcard mode: none of these)
    const certFor = (subdomain: string) => (mode === 'per-name' ? copyLineage(`${subdomain}.${TEST_DOMAIN}`) : Promise.resolve());

    /** Tunnels seeded straight into the records and nginx in one change, each vhost as the mode makes it. */
    const seeded: TunnelRecord[] = [(base.body as { tunnel: TunnelRecord }).tunnel];
    async function growTo(size: number) {
      const more: TunnelRecord[] = [];
      for (let i = seeded.length; i < size; i++) {
        const subdomain = `s${i}`;
        await certFor(subdomain);
        more.push({ id: crypto.randomUUID(), subdomain, fqdn: `${subdomain}.${TEST_DOMAIN}`, port: port++, description: '', enabled: true, createdAt: new Date().toISOString() });
      }
      const at = performance.now();
      await app.services.system.proxy.apply(more.map((x) => putVhost(x, true, config.value)));
      await app.services.store.tunnels.edit((draft) => { for (const x of more) draft.put(x); });
      seeded.push(...more);
      console.log(`  ${mode}, ${size} vhosts: ${more.length} seeded in one change in ${((performance.now() - at) / 1000).toFixed(2)} s`);
    }

    /** Untimed: the tunnel is a route of the shared server, which loads the lineage the mode names (per name: root's map), and in wildcard mode no order made one of the name's own. */
    async function servedAsTheModeSays(fqdn: string) {
      const own = await readFile(join(system.nginx.sitesAvailable, vhostName(appVhost({ fqdn, port: 1 }))), 'utf8');
      if (!isRouteText(own)) throw new Error(`${mode}: the file of ${fqdn} is not a route of the shared server`);
      const text = await readFile(join(system.nginx.sitesAvailable, vhostName(tunnelsVhost(TEST_DOMAIN, config.value))), 'utf8');
      const loads = mode === 'wildcard' ? `/${TEST_DOMAIN}/fullchain.pem"` : 'ssl_certificate data:$relay_sni_pem0$relay_sni_pem1$relay_sni_pem2$relay_sni_pem3;';
      if (!text.includes(loads)) throw new Error(`${mode}: the server of ${fqdn} does not load ${loads}`);
      if (mode !== 'wildcard' && !(await access(join(live, fqdn)).then(() => true, () => false))) throw new Error(`per-name: ${fqdn} has no certificate of its own`);
      if (mode === 'wildcard' && (await access(join(live, fqdn)).then(() => true, () => false))) throw new Error(`wildcard: ${fqdn} got a certificate of its own`);
    }

    const rows: Row[] = [];
    for (const size of sizes) {
      await growTo(size);
      const create: number[] = [], disable: number[] = [], enable: number[] = [], remove: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const subdomain = `m${size}-${round}`;
        await certFor(subdomain);
        const made = await timed(() => app.call('POST', '/api/tunnels', { body: { subdomain, port: port++ } }), 201);
        create.push(made.ms);
        const { id, fqdn } = (made.body as { tunnel: TunnelRecord }).tunnel;
        if (round === 0) await servedAsTheModeSays(fqdn);
        disable.push((await timed(() => app.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: false } }), 200)).ms);
        enable.push((await timed(() => app.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: true } }), 200)).ms);
        remove.push((await timed(() => app.call('DELETE', `/api/tunnels/${id}`), 200)).ms);
      }
      // toggles of several tunnels sent at once: when each answers, the last one's time is the figure
      const load = load1();
      const at = performance.now();
      const answers = await Promise.all(seeded.slice(0, concurrent).map(async (x) => {
        const r = await app.call('PATCH', `/api/tunnels/${x.id}`, { body: { enabled: false } });
        if (r.status !== 200) throw new Error(`concurrent toggle: ${r.status} ${JSON.stringify(r.body)}`);
        return performance.now() - at;
      }));
      for (const x of seeded.slice(0, concurrent)) await app.call('PATCH', `/api/tunnels/${x.id}`, { body: { enabled: true } });
      const figures = { create: median(create), disable: median(disable), enable: median(enable), delete: median(remove), concurrentMedian: median(answers), concurrentLast: Math.max(...answers) };
      rows.push({ mode, size, figures, load });
    }
    return rows;
  } finally {
    await t?.close();
    await infra.stop();
  }
}
