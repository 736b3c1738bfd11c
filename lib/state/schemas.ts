import { z } from 'zod';

// Record shapes of the embedded store. API input schemas live with their domain (lib/<domain>/schema.ts).

const isoTimestamp = z.string().min(1);

/**
 * Who may reach a tunnel or a site (Portlama's modes): `authenticated` every signed-in portal user
 * (the default, also what a record without `access` means), `restricted` the listed users and groups
 * and the admins, `public` no portal at all (tunnels only, admin-only). `rules` come first, in order:
 * a path, network or method let through (`bypass`), refused (`deny`) or asked a factor.
 */
export const ACCESS_MODES = ['authenticated', 'restricted', 'public'] as const;
export const ACCESS_POLICIES = ['bypass', 'deny', 'one_factor', 'two_factor'] as const;
/** The methods Authelia 4.38's rules take. */
export const RULE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'CONNECT', 'OPTIONS', 'COPY', 'LOCK', 'MKCOL', 'MOVE', 'PROPFIND', 'PROPPATCH', 'UNLOCK'] as const;
export const AccessRuleRecord = z.object({
  resources: z.array(z.string()).optional(),
  networks: z.array(z.string()).optional(),
  methods: z.array(z.enum(RULE_METHODS)).optional(),
  policy: z.enum(ACCESS_POLICIES),
});
export type AccessRuleRecord = z.infer<typeof AccessRuleRecord>;
export const AccessRecord = z.object({
  mode: z.enum(ACCESS_MODES),
  users: z.array(z.string()),
  groups: z.array(z.string()),
  rules: z.array(AccessRuleRecord),
});
export type AccessRecord = z.infer<typeof AccessRecord>;

export const TunnelRecord = z.object({
  id: z.string().uuid(),
  subdomain: z.string(),
  fqdn: z.string(),
  port: z.number().int(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  createdAt: isoTimestamp,
  /** absent: the default (every signed-in portal user) */
  access: AccessRecord.optional(),
});
export type TunnelRecord = z.infer<typeof TunnelRecord>;

/**
 * A TCP or UDP tunnel: nginx's stream module listens on `publicPort` and passes each connection
 * (or datagram) to the tunnel's reverse listener on the box's loopback, `tunnelPort`, which the
 * client's chisel carries to `port` on the client machine. Kept apart from the HTTP tunnels'
 * records, whose shape the spec fixes.
 */
export const StreamRecord = z.object({
  id: z.string().uuid(),
  protocol: z.enum(['tcp', 'udp']),
  publicPort: z.number().int(),
  port: z.number().int(),
  tunnelPort: z.number().int(),
  /** source addresses or networks let through; empty: every source */
  allow: z.array(z.string()),
  proxyProtocol: z.boolean(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  createdAt: isoTimestamp,
});
export type StreamRecord = z.infer<typeof StreamRecord>;

export const SiteRecord = z.object({
  id: z.string().uuid(),
  name: z.string(),
  fqdn: z.string(),
  type: z.enum(['managed', 'custom']),
  spaMode: z.boolean(),
  autheliaProtected: z.boolean(),
  allowedUsers: z.array(z.string()),
  dnsVerified: z.boolean(),
  certIssued: z.boolean(),
  rootPath: z.string(),
  createdAt: isoTimestamp,
  totalSize: z.number(),
  /** absent: `allowedUsers` alone says who may reach a protected site */
  access: AccessRecord.optional(),
});
export type SiteRecord = z.infer<typeof SiteRecord>;

/** How an agent's key was made: a PKCS#12 bundle the panel generated, or the agent's own key sent as a CSR (POST /api/enroll). */
export const EnrollmentMethod = z.enum(['p12', 'hardware-bound']);

/** An agent certificate: the registry the identity check reads capabilities from. */
export const AgentRecord = z.object({
  label: z.string(),
  serial: z.string(),
  capabilities: z.array(z.string()),
  allowedSites: z.array(z.string()),
  createdAt: isoTimestamp,
  expiresAt: isoTimestamp.nullable().default(null),
  revokedAt: isoTimestamp.nullable().default(null),
  /** Records written before the field existed were all bundles. */
  enrollmentMethod: EnrollmentMethod.default('p12'),
});
export type AgentRecord = z.infer<typeof AgentRecord>;

/** An installed plugin: its manifest's fields, where npm put it, and whether its routes are mounted. */
export const PluginRecord = z.object({
  name: z.string(),
  displayName: z.string(),
  packageName: z.string(),
  version: z.string(),
  description: z.string(),
  capabilities: z.array(z.string()),
  /** What was installed: the registry name or the `file:` tarball. */
  spec: z.string(),
  status: z.enum(['enabled', 'disabled']),
  installedAt: isoTimestamp,
  enabledAt: isoTimestamp.nullable().default(null),
});
export type PluginRecord = z.infer<typeof PluginRecord>;

/** Portlama's four; `check-prerequisites` names no package (the agent checks what it needs to install plugins). */
export const PUSH_ACTIONS = ['install', 'update', 'uninstall', 'check-prerequisites'] as const;
/** Portlama's default for a new policy and the `default` one. */
export const DEFAULT_PUSH_ACTIONS = ['install', 'update', 'check-prerequisites'] as const;

/** Which plugins may be pushed to an agent, and what may be done with them. */
export const PushPolicyRecord = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  /** npm package names (`@acme/hello`). */
  allowedPlugins: z.array(z.string()),
  allowedActions: z.array(z.enum(PUSH_ACTIONS)),
  /** Source addresses or CIDR ranges a push may come from, and may not (Portlama's); empty allows any. Policies stored before address rules existed have none. */
  allowedIps: z.array(z.string()).default([]),
  deniedIps: z.array(z.string()).default([]),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});
export type PushPolicyRecord = z.infer<typeof PushPolicyRecord>;

/** Push-install turned on for one agent, under a policy, until it expires. */
export const PushGrantRecord = z.object({
  label: z.string(),
  policyId: z.string(),
  enabledAt: isoTimestamp,
  expiresAt: isoTimestamp,
});
export type PushGrantRecord = z.infer<typeof PushGrantRecord>;

/** One push, kept as an audit entry. */
export const PushSessionRecord = z.object({
  id: z.string(),
  label: z.string(),
  /** null for `check-prerequisites`. */
  packageName: z.string().nullable(),
  action: z.enum(PUSH_ACTIONS),
  policyId: z.string(),
  status: z.literal('requested'),
  createdAt: isoTimestamp,
});
export type PushSessionRecord = z.infer<typeof PushSessionRecord>;

export const RevocationRecord = z.object({
  serial: z.string(),
  label: z.string().nullable(),
  revokedAt: isoTimestamp,
});
export type RevocationRecord = z.infer<typeof RevocationRecord>;

export const InvitationRecord = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  /** the portal user's display name once accepted */
  displayname: z.string(),
  groups: z.array(z.string()),
  /** sha-256 (hex) of the token; the token itself is shown once, in the create answer */
  tokenHash: z.string(),
  createdAt: isoTimestamp,
  expiresAt: isoTimestamp,
  used: z.boolean(),
  acceptedAt: isoTimestamp.nullable(),
});
export type InvitationRecord = z.infer<typeof InvitationRecord>;

// ----- agent-to-agent tickets -----

export const TransportStrategy = z.enum(['tunnel', 'relay', 'direct']);
export const TransportProtocol = z.enum(['wss', 'tcp']);

export const TransportConfig = z.object({
  strategies: z.array(TransportStrategy),
  preferred: TransportStrategy.optional(),
  port: z.number().optional(),
  protocol: TransportProtocol.optional(),
  direct: z.object({ host: z.string(), port: z.number() }).optional(),
});
export type TransportConfig = z.infer<typeof TransportConfig>;

export const TicketScopeRecord = z.object({
  name: z.string(),
  version: z.string(),
  description: z.string(),
  scopes: z.array(z.object({ name: z.string(), description: z.string(), instanceScoped: z.boolean() })),
  transport: TransportConfig,
  registeredAt: isoTimestamp,
});
export type TicketScopeRecord = z.infer<typeof TicketScopeRecord>;

export const TicketInstanceRecord = z.object({
  instanceId: z.string(),
  instanceScope: z.string(),
  scope: z.string(),
  agentLabel: z.string(),
  transport: TransportConfig,
  status: z.enum(['active', 'stale', 'dead']),
  registeredAt: isoTimestamp,
  lastHeartbeat: isoTimestamp,
});
export type TicketInstanceRecord = z.infer<typeof TicketInstanceRecord>;

export const TicketAssignmentRecord = z.object({
  agentLabel: z.string(),
  instanceScope: z.string(),
  assignedAt: isoTimestamp,
  assignedBy: z.string(),
});
export type TicketAssignmentRecord = z.infer<typeof TicketAssignmentRecord>;

export const TicketRecord = z.object({
  id: z.string(),
  scope: z.string(),
  instanceId: z.string(),
  source: z.string(),
  target: z.string(),
  createdAt: isoTimestamp,
  expiresAt: isoTimestamp,
  used: z.boolean(),
  usedAt: isoTimestamp.nullable(),
  /** Set by an admin revoke: a revoked ticket can no longer open a session even though it is `used`. */
  revokedAt: isoTimestamp.nullable().default(null),
});
export type TicketRecord = z.infer<typeof TicketRecord>;

/** Why a session ended: the reasons a heartbeat reports. */
export const SessionEndReason = z.enum(['admin_killed', 'source_revoked', 'capability_removed', 'target_revoked', 'assignment_removed']);
export type SessionEndReason = z.infer<typeof SessionEndReason>;

export const SessionStatus = z.enum(['active', 'grace', 'dead']);
/** The statuses a party may set (PATCH); only the server ends a session. */
export const LiveSessionStatus = SessionStatus.exclude(['dead']);
export type LiveSessionStatus = z.infer<typeof LiveSessionStatus>;

export const TicketSessionRecord = z.object({
  sessionId: z.string(),
  ticketId: z.string(),
  scope: z.string(),
  instanceId: z.string(),
  source: z.string(),
  target: z.string(),
  createdAt: isoTimestamp,
  lastActivityAt: isoTimestamp,
  status: SessionStatus,
  reconnectGraceSeconds: z.number(),
  endedAt: isoTimestamp.nullable(),
  endReason: SessionEndReason.nullable(),
});
export type TicketSessionRecord = z.infer<typeof TicketSessionRecord>;

// ----- alerts -----

/** What a webhook can be told (docs/operations.md > Alerts gives each one's data). */
export const ALERT_EVENTS = ['tunnel.down', 'tunnel.up', 'cert.expiring', 'cert.renewal_failed', 'service.inactive', 'disk.low', 'agent.revoked', 'cert.limit_near'] as const;
export const AlertEventName = z.enum(ALERT_EVENTS);
export type AlertEventName = z.infer<typeof AlertEventName>;

export const WebhookRecord = z.object({
  id: z.string(),
  url: z.string(),
  /** the HMAC-SHA256 key of the X-Relay-Signature header; never shown after the create answer */
  secret: z.string(),
  events: z.array(AlertEventName),
  /** how long a tunnel's client is gone before `tunnel.down` is sent */
  tunnelDownMinutes: z.number().int(),
  enabled: z.boolean(),
  createdAt: isoTimestamp,
});
export type WebhookRecord = z.infer<typeof WebhookRecord>;

/** One certbot run the panel started: a certificate order, issued or failed. */
export const CertIssuanceRecord = z.object({
  id: z.string(),
  at: z.string().min(1),
  /** the ACME directory the order went to: each CA (and Let's Encrypt's staging) counts apart */
  server: z.string(),
  /** the certificate's names, lower case and sorted: the "exact set" duplicates are counted by */
  names: z.array(z.string()).min(1),
  /** `renewal`: a certificate for the same names existed (exempt from the per-domain limit) */
  kind: z.enum(['new', 'renewal']),
  outcome: z.enum(['issued', 'failed']),
  /** names whose validation the CA reported failed (counted per hostname per hour) */
  failedValidations: z.array(z.string()).default([]),
});
export type CertIssuanceRecord = z.infer<typeof CertIssuanceRecord>;
