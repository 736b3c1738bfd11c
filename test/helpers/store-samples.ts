// One valid record per store collection, numbered: the file-mode checks and the crash storm write
// every collection, and a record rebuilt from its number tells whether what loads is what was written.
import type { CollectionName, Store } from '../../lib/state/store.ts';

type RecordOf<K extends CollectionName> = Parameters<Store[K]['keyOf']>[0];

const at = '2026-01-01T00:00:00.000Z';
/** A version-4 UUID that holds `n` (tunnel and site ids must be UUIDs). */
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const transport = { strategies: ['tunnel' as const] };

export const STORE_SAMPLES: { [K in CollectionName]: (n: number) => RecordOf<K> } = {
  tunnels: (n) => ({ id: uuid(n), subdomain: `t${n}`, fqdn: `t${n}.example.test`, port: 20000 + (n % 40000), description: null, enabled: true, createdAt: at }),
  streams: (n) => ({
    id: uuid(n), protocol: n % 2 ? 'udp' : 'tcp', publicPort: 10000 + (n % 50000), port: 22, tunnelPort: 60001 + (n % 5000), allow: [],
    proxyProtocol: false, description: null, enabled: true, createdAt: at,
  }),
  sites: (n) => ({
    id: uuid(n), name: `s${n}`, fqdn: `s${n}.example.test`, type: 'managed', spaMode: false, autheliaProtected: false, allowedUsers: [],
    dnsVerified: false, certIssued: false, rootPath: `/sites/${n}`, createdAt: at, totalSize: n,
  }),
  agents: (n) => ({ label: `agent-${n}`, serial: n.toString(16), capabilities: ['tunnels:read'], allowedSites: [], createdAt: at, expiresAt: null, revokedAt: null, enrollmentMethod: 'p12' }),
  revocations: (n) => ({ serial: `r${n}`, label: null, revokedAt: at }),
  invitations: (n) => ({
    id: `inv-${n}`, username: `u${n}`, email: `u${n}@example.test`, displayname: `User ${n}`, groups: [], tokenHash: 'ab'.repeat(32),
    createdAt: at, expiresAt: at, used: false, acceptedAt: null,
  }),
  plugins: (n) => ({
    name: `plugin-${n}`, displayName: `Plugin ${n}`, packageName: `@acme/plugin-${n}`, version: '1.0.0', description: '', capabilities: [],
    spec: `@acme/plugin-${n}`, status: 'enabled', installedAt: at, enabledAt: at,
  }),
  pushPolicies: (n) => ({ id: `policy-${n}`, name: `p${n}`, description: '', allowedPlugins: [], allowedActions: ['install'], allowedIps: [], deniedIps: [], createdAt: at, updatedAt: at }),
  pushGrants: (n) => ({ label: `agent-${n}`, policyId: 'default', enabledAt: at, expiresAt: at }),
  pushSessions: (n) => ({ id: `push-${n}`, label: `agent-${n}`, packageName: null, action: 'check-prerequisites', policyId: 'default', status: 'requested', createdAt: at }),
  ticketScopes: (n) => ({ name: `scope-${n}`, version: '1.0.0', description: '', scopes: [{ name: `scope-${n}:use`, description: '', instanceScoped: false }], transport, registeredAt: at }),
  ticketInstances: (n) => ({
    instanceId: `instance-${n}`, instanceScope: `scope-${n}:use`, scope: `scope-${n}`, agentLabel: `agent-${n}`, transport, status: 'active',
    registeredAt: at, lastHeartbeat: at,
  }),
  ticketAssignments: (n) => ({ agentLabel: `agent-${n}`, instanceScope: `scope-${n}:use`, assignedAt: at, assignedBy: 'admin' }),
  tickets: (n) => ({
    id: `ticket-${n}`, scope: `scope-${n}:use`, instanceId: `instance-${n}`, source: 'a', target: 'b', createdAt: at, expiresAt: at, used: false,
    usedAt: null, revokedAt: null,
  }),
  ticketSessions: (n) => ({
    sessionId: `session-${n}`, ticketId: `ticket-${n}`, scope: `scope-${n}:use`, instanceId: `instance-${n}`, source: 'a', target: 'b',
    createdAt: at, lastActivityAt: at, status: 'active', reconnectGraceSeconds: 30, endedAt: null, endReason: null,
  }),
  webhooks: (n) => ({ id: `hook-${n}`, url: `https://hooks.example.test/${n}`, secret: 'cd'.repeat(32), events: ['tunnel.down'], tunnelDownMinutes: 5, enabled: true, createdAt: at }),
  certIssuances: (n) => ({ id: uuid(n), at, server: 'https://acme.example.test/dir', names: [`c${n}.example.test`], kind: 'new', outcome: 'issued', failedValidations: [] }),
};

export const COLLECTION_NAMES = Object.keys(STORE_SAMPLES) as CollectionName[];

/** Writes record `n` to collection `name` through its write path (`edit`), answered once on disk. */
export function putSample(store: Store, name: CollectionName, n: number): Promise<void> {
  const collection = store[name] as unknown as Store['tunnels'];
  const record = STORE_SAMPLES[name](n) as unknown as Parameters<Store['tunnels']['keyOf']>[0];
  return collection.edit((draft) => draft.put(record));
}
