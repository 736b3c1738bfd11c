// A seeded configuration and dataDir for the benchmark: the store's JSON array files, written
// before the server starts (lib/state/store.ts, record shapes in lib/state/schemas.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const DOMAIN = 'relay.bench.test';
export const SCOPE = 'bench-echo';
export const CAPABILITY = `${SCOPE}:connect`;
export const COUNTS = { tunnels: 200, sites: 50, agents: 20 };
/** Unused, unexpired tickets waiting in the inbox agent's inbox; plus used/other tickets around them. */
export const INBOX_TICKETS = 5;
export const OTHER_TICKETS = 45;

const pad = (n) => String(n).padStart(2, '0');
export const agentLabel = (i) => `bench-agent-${pad(i + 1)}`;
export const agentSerial = (i) => (0x1000 + i).toString(16).toUpperCase();
export const ADMIN = { dn: 'CN=admin', serial: '01' };
/** The agent whose inbox is measured. */
export const INBOX_AGENT = 0;

export function adminHeaders() {
  return { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-dn': ADMIN.dn, 'x-ssl-client-serial': ADMIN.serial };
}

export function agentHeaders(i) {
  return {
    'x-ssl-client-verify': 'SUCCESS',
    'x-ssl-client-dn': `CN=agent:${agentLabel(i)}`,
    'x-ssl-client-serial': agentSerial(i),
  };
}

/** The target that agent `i` sends tickets to for its own instance (assigned below). */
export const roundTripTarget = (i) => (i + 1) % COUNTS.agents;

/**
 * Writes `<dir>/config.json` and `<dir>/data/*.json`. Returns the config path, what was seeded and the
 * ticket plan (instances by owner). `storedTickets` fills the tickets collection up to that many
 * (the write-path growth figures), two in three of them used, all within their hour. `tunnelCount`
 * replaces the 200 tunnels (the panel's long-list figures seed 1,000).
 */
export async function seed(dir, { now = Date.now(), storedTickets = 0, tunnelCount = COUNTS.tunnels } = {}) {
  const dataDir = join(dir, 'data');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const iso = (ms) => new Date(ms).toISOString();

  const config = {
    ip: '203.0.113.10',
    domain: DOMAIN,
    email: 'ops@bench.test',
    dataDir,
    onboarding: { status: 'COMPLETED' },
    sessionSecret: randomBytes(32).toString('hex'),
    listen: { host: '127.0.0.1', port: 0 },
    system: { driver: 'sandbox' },
  };

  const tunnels = Array.from({ length: tunnelCount }, (_, i) => ({
    id: randomUUID(),
    subdomain: `svc-${i + 1}`,
    fqdn: `svc-${i + 1}.${DOMAIN}`,
    port: 20000 + i,
    description: i % 3 === 0 ? null : `bench tunnel ${i + 1} (home lab service)`,
    enabled: i % 7 !== 0,
    createdAt: iso(now - (tunnelCount - i) * 60_000),
  }));

  const sites = Array.from({ length: COUNTS.sites }, (_, i) => ({
    id: randomUUID(),
    name: `site-${i + 1}`,
    fqdn: i % 5 === 4 ? `www.custom-${i + 1}.example` : `site-${i + 1}.${DOMAIN}`,
    type: i % 5 === 4 ? 'custom' : 'managed',
    spaMode: i % 2 === 0,
    autheliaProtected: i % 4 === 0,
    allowedUsers: i % 4 === 0 ? ['alice', 'bob'] : [],
    dnsVerified: true,
    certIssued: true,
    rootPath: join(dataDir, 'sites', `site-${i + 1}`),
    createdAt: iso(now - (COUNTS.sites - i) * 3_600_000),
    totalSize: 1024 * (i + 1) * 37,
  }));

  const agents = Array.from({ length: COUNTS.agents }, (_, i) => ({
    label: agentLabel(i),
    serial: agentSerial(i),
    // the base scope name and its capability: either may be what "the base scope capability" checks
    capabilities: ['tunnels:read', 'tunnels:write', 'system:read', 'sites:read', SCOPE, CAPABILITY],
    allowedSites: sites.slice(i % COUNTS.sites, (i % COUNTS.sites) + 3).map((s) => s.id),
    createdAt: iso(now - 86_400_000),
    expiresAt: iso(now + 365 * 86_400_000),
    revokedAt: null,
  }));

  const transport = { strategies: ['tunnel', 'relay'], preferred: 'tunnel', port: 0, protocol: 'wss' };
  const ticketScopes = [
    {
      name: SCOPE,
      version: '1.0.0',
      description: 'benchmark echo service',
      scopes: [{ name: CAPABILITY, description: 'connect to an echo instance', instanceScoped: true }],
      transport,
      registeredAt: iso(now - 3_600_000),
    },
  ];

  // One active instance per agent; agent i's instance is assigned to agent i+1 (the round trip target)
  // and to agent i+2.
  const ticketInstances = agents.map((a) => {
    const instanceId = randomBytes(8).toString('hex');
    return {
      instanceId,
      instanceScope: `${CAPABILITY}:${instanceId}`,
      scope: CAPABILITY,
      agentLabel: a.label,
      transport: { strategies: ['tunnel'], preferred: 'tunnel' },
      status: 'active',
      registeredAt: iso(now - 600_000),
      lastHeartbeat: iso(now),
    };
  });
  const ticketAssignments = ticketInstances.flatMap((instance, i) =>
    [1, 2].map((step) => ({
      agentLabel: agentLabel((i + step) % COUNTS.agents),
      instanceScope: instance.instanceScope,
      assignedAt: iso(now - 300_000),
      assignedBy: 'admin',
    })),
  );

  // The inbox agent receives tickets from the two agents whose instances are assigned to it.
  const inboxSources = [1, 2].map((step) => (INBOX_AGENT - step + COUNTS.agents) % COUNTS.agents);
  const ticket = (source, target, used, ageMs) => ({
    id: randomBytes(32).toString('hex'),
    scope: CAPABILITY,
    instanceId: ticketInstances[source].instanceId,
    source: agentLabel(source),
    target: agentLabel(target),
    createdAt: iso(now - ageMs),
    expiresAt: iso(now - ageMs + 30 * 60_000),
    used,
    usedAt: used ? iso(now - ageMs + 1000) : null,
  });
  const tickets = [
    ...Array.from({ length: INBOX_TICKETS }, (_, k) => ticket(inboxSources[k % 2], INBOX_AGENT, false, 10_000 + k * 1000)),
    ...Array.from({ length: Math.max(OTHER_TICKETS, storedTickets - INBOX_TICKETS) }, (_, k) => {
      const source = (k + 3) % COUNTS.agents;
      return ticket(source, roundTripTarget(source), k % 3 !== 0, 60_000 + (k % 3000) * 1000);
    }),
  ];

  const files = { tunnels, sites, agents, ticketScopes, ticketInstances, ticketAssignments, tickets };
  await Promise.all(
    Object.entries(files).map(([name, value]) => writeFile(join(dataDir, `${name}.json`), JSON.stringify(value), { mode: 0o600 })),
  );
  const configPath = join(dir, 'config.json');
  await writeFile(configPath, JSON.stringify(config, null, 2), { mode: 0o600 });

  return {
    configPath,
    dataDir,
    counts: Object.fromEntries(Object.entries(files).map(([name, value]) => [name, value.length])),
    inboxUnusedTickets: INBOX_TICKETS,
    instances: ticketInstances,
  };
}
