// The desired host state for each kind of record, as one table: the vhosts the start-up refresh,
// the restore, the tunnel repair and onboarding each wrote from a list of their own before the
// lists became this one (served: the restore's and the refresh's written vhosts; current: what the
// refresh keeps in this release's templates; tunnels: the repair's; stack: onboarding's task and
// its guard), the tunnel server's ports, the IP panel's link and the portal's access rules.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { desiredHost, ipPanelLinked, portalRules, provisionedStack, tunnelPorts, type HostRecords } from '../../../lib/host-state/desired.ts';
import type { SiteRecord, TunnelRecord } from '../../../lib/state/schemas.ts';
import type { VhostSpec } from '../../../lib/system/types.ts';

const DOMAIN = 'example.test';
const STACK: VhostSpec[] = [
  { kind: 'panel', fqdn: `panel.${DOMAIN}` },
  { kind: 'auth-portal', fqdn: `auth.${DOMAIN}` },
  { kind: 'tunnel-server', fqdn: `tunnel.${DOMAIN}` },
];
const IP_PANEL: VhostSpec = { kind: 'ip-panel' };
const DEFAULT: VhostSpec = { kind: 'default' };

function tunnel(subdomain: string, port: number, enabled = true): TunnelRecord {
  return { id: `00000000-0000-4000-8000-${String(port).padStart(12, '0')}`, subdomain, fqdn: `${subdomain}.${DOMAIN}`, port, description: null, enabled, createdAt: '2026-01-01T00:00:00.000Z' };
}

function site(fqdn: string, extra: Partial<SiteRecord> = {}): SiteRecord {
  return {
    id: '00000000-0000-4000-8000-000000000001', name: fqdn.split('.')[0]!, fqdn, type: 'managed', spaMode: false, autheliaProtected: false, allowedUsers: [],
    dnsVerified: true, certIssued: true, rootPath: `/srv/sites/${fqdn}`, createdAt: '2026-01-01T00:00:00.000Z', totalSize: 0, ...extra,
  };
}

interface Records {
  status?: 'PENDING' | 'COMPLETED';
  domain?: string | null;
  sites?: SiteRecord[];
  tunnels?: TunnelRecord[];
  /** the names with a valid certificate; every name unless given */
  certified?: string[];
}

function records({ status = 'COMPLETED', domain = DOMAIN, sites = [], tunnels = [], certified }: Records): HostRecords {
  return {
    config: { value: { domain, onboarding: { status } } } as unknown as HostRecords['config'],
    store: { sites: { value: sites }, tunnels: { value: tunnels } } as unknown as HostRecords['store'],
    system: { certs: { has: async (fqdn: string) => certified === undefined || certified.includes(fqdn) } },
  };
}

// one label under the domain: a route of the shared server (per name, the map serves its certificate)
const appSpec = (t: TunnelRecord, domain: string | null = DOMAIN): VhostSpec => ({ kind: 'app', fqdn: t.fqdn, port: t.port, ...(domain ? { shared: true as const } : {}) });
const HUB: VhostSpec = { kind: 'tunnels', fqdn: DOMAIN, sni: true };
const siteSpec = (fqdn: string, protect = false, closed = false): VhostSpec => ({
  kind: 'site', fqdn, root: `/srv/sites/${fqdn}`, spaMode: false, protected: protect, ...(closed ? { closed: true as const } : {}),
});

const one = tunnel('one', 7001);
const two = tunnel('two', 7002, false);
const three = tunnel('three', 7001);

const TABLE: Array<{ name: string; records: Records; served: VhostSpec[]; tunnels: Array<[TunnelRecord, boolean]>; ports: number[] }> = [
  { name: 'before onboarding: nothing served, the default server install wrote kept current', records: { status: 'PENDING', domain: null, tunnels: [one] }, served: [], tunnels: [[one, true]], ports: [7001] },
  { name: 'a domain chosen but onboarding not done: still nothing served', records: { status: 'PENDING' }, served: [], tunnels: [], ports: [] },
  { name: 'onboarding done: the default server and the stack', records: {}, served: [DEFAULT, ...STACK, HUB], tunnels: [], ports: [] },
  { name: 'a stack vhost without its certificate is not served', records: { certified: [`panel.${DOMAIN}`, `tunnel.${DOMAIN}`] }, served: [DEFAULT, STACK[0]!, STACK[2]!, HUB], tunnels: [], ports: [] },
  {
    name: 'sites: served with their certificate issued and there; protected outside the domain, closed',
    records: {
      sites: [site(`docs.${DOMAIN}`), site(`new.${DOMAIN}`, { certIssued: false }), site(`lost.${DOMAIN}`), site(`private.${DOMAIN}`, { autheliaProtected: true }), site('shop.customer.example', { type: 'custom', autheliaProtected: true })],
      certified: [...STACK.map((s) => (s as { fqdn: string }).fqdn), `docs.${DOMAIN}`, `new.${DOMAIN}`, `private.${DOMAIN}`, 'shop.customer.example'],
    },
    served: [DEFAULT, ...STACK, HUB, siteSpec(`docs.${DOMAIN}`), siteSpec(`private.${DOMAIN}`, true), siteSpec('shop.customer.example', true, true)],
    tunnels: [],
    ports: [],
  },
  {
    name: 'tunnels: every one has its vhost, linked while enabled; only enabled ports, each once',
    records: { tunnels: [one, two, three] },
    served: [DEFAULT, ...STACK, HUB],
    tunnels: [[one, true], [two, false], [three, true]],
    ports: [7001],
  },
];

const s = suite('the desired host state');

for (const row of TABLE) {
  s(row.name, async () => {
    const desired = await desiredHost(records(row.records));
    assert.equal(desired.served, row.served, 'served');
    const domain = row.records.domain === undefined ? DOMAIN : row.records.domain;
    assert.equal(desired.tunnels, row.tunnels.map(([t, enabled]) => ({ id: t.id, fqdn: t.fqdn, spec: appSpec(t, domain), enabled })), 'tunnels');
    const tunnelSpecs = row.tunnels.map(([t]) => appSpec(t, domain));
    assert.equal(desired.current, [IP_PANEL, ...(row.served.length ? row.served : [DEFAULT]), ...tunnelSpecs], 'kept current');
    assert.equal(tunnelPorts(row.tunnels.map(([t, enabled]) => ({ port: t.port, enabled }))), row.ports, 'tunnel ports');
  });
}

s('onboarding writes the default server and the stack, and names the stack vhosts whose certificate is missing', async () => {
  assert.equal(await provisionedStack(records({}).system.certs, DOMAIN), { vhosts: [DEFAULT, ...STACK], uncertified: [] });
  const partial = records({ certified: [`panel.${DOMAIN}`] }).system.certs;
  assert.equal(await provisionedStack(partial, DOMAIN), { vhosts: [DEFAULT, ...STACK], uncertified: [STACK[1]!, STACK[2]!] });
});

s('once onboarding is done, the stack it wrote is what is served', async () => {
  const stack = await provisionedStack(records({}).system.certs, DOMAIN, records({}).config.value);
  const served = (await desiredHost(records({ sites: [site(`docs.${DOMAIN}`)] }))).served;
  assert.equal(served.filter((spec) => spec.kind !== 'site'), stack.vhosts);
});

s('tunnel ports: sorted, each once, disabled ones left out', () => {
  assert.equal(tunnelPorts([{ port: 9000, enabled: true }, { port: 80, enabled: true }, { port: 9000, enabled: true }, { port: 443, enabled: false }]), [80, 9000]);
});

s('the IP panel is linked only while the panel\'s 2FA is off', () => {
  assert.is(ipPanelLinked({ enabled: false }), true);
  assert.is(ipPanelLinked({ enabled: true }), false);
});

s('portal rules: one per protected site the portal reaches, with its users; unprotected and unreachable sites get none', () => {
  const sites = [
    site(`private.${DOMAIN}`, { autheliaProtected: true, allowedUsers: ['ana', 'bo'] }),
    site(`docs.${DOMAIN}`),
    site('shop.customer.example', { type: 'custom', autheliaProtected: true, allowedUsers: ['ana'] }),
  ];
  assert.equal(portalRules(sites, DOMAIN), [{ fqdn: `private.${DOMAIN}`, allowedUsers: ['ana', 'bo'] }]);
  assert.equal(portalRules(sites, null), [], 'no domain: the portal reaches nothing');
});

s.run();
