import { z } from 'zod';
import { LiveSessionStatus, TransportProtocol, TransportStrategy } from '../state/schemas.ts';
import { RESERVED_SCOPE_NAMES } from './reserved-names.ts';

// Request bodies, params and queries of /api/tickets/*; record shapes live in lib/state/schemas.ts.

const CAPABILITY_FORMAT = /^[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$/;
/** `<scope>:<action>:<instanceId>`; the id in any case, compared lower-case like id params. */
const INSTANCE_SCOPE_FORMAT = /^[A-Za-z0-9_-]+:[A-Za-z0-9_-]+:[0-9a-fA-F]+$/;

// The spec's limits (tickets.md); MAX_UNSPECIFIED_PARAM is ours, for a path parameter the spec gives no length.
const MAX_AGENT_LABEL = 100;
const MAX_INSTANCE_SCOPE = 200;
const MAX_SCOPE_DECLARATIONS = 50;
const MAX_UNSPECIFIED_PARAM = 1024;

const scopePartOf = (capability: string) => capability.slice(0, capability.indexOf(':'));

export const CapabilityName = z
  .string()
  .max(101)
  .regex(CAPABILITY_FORMAT, 'must be a capability name in scope:action format')
  .refine((name) => !RESERVED_SCOPE_NAMES.has(scopePartOf(name).toLowerCase()), 'uses a reserved scope name');

/** Server-generated ids are lower-case hex; any case is accepted and compared lower-case. */
const hexId = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[0-9a-fA-F]+$/, 'must be a hex string')
    .transform((id) => id.toLowerCase());

export const AgentLabel = z.string().min(1).max(MAX_AGENT_LABEL);

// The size checks come first: zod then refuses an oversized array before parsing any element.
const Strategies = z
  .array(TransportStrategy)
  .min(1)
  .max(TransportStrategy.options.length)
  .refine((list) => new Set(list).size === list.length, 'must not repeat a strategy');
const preferredIsOffered = (transport: { strategies: string[]; preferred?: string }) =>
  transport.preferred === undefined || transport.strategies.includes(transport.preferred);
const PREFERRED_NOT_OFFERED = { message: 'preferred must be one of strategies', path: ['preferred'] };

const ScopeTransport = z
  .object({
    strategies: Strategies,
    preferred: TransportStrategy,
    port: z
      .number()
      .int()
      .refine((port) => port === 0 || (port >= 1024 && port <= 65535), 'must be 0 or 1024 to 65535'),
    protocol: TransportProtocol,
  })
  .refine(preferredIsOffered, PREFERRED_NOT_OFFERED);

export const ScopeRegistration = z.object({
  name: z
    .string()
    .min(1)
    .max(50)
    .regex(/^[a-z0-9-]+$/, 'must be lowercase letters, digits and hyphens')
    .refine((name) => !RESERVED_SCOPE_NAMES.has(name), 'is a reserved scope name'),
  version: z.string().min(1).max(50),
  description: z.string().min(1).max(500),
  scopes: z
    .array(z.object({ name: CapabilityName, description: z.string().min(1).max(500), instanceScoped: z.boolean() }))
    .min(1)
    .max(MAX_SCOPE_DECLARATIONS)
    .refine((list) => new Set(list.map((c) => c.name)).size === list.length, 'must not declare a capability twice'),
  transport: ScopeTransport,
});
export type ScopeRegistration = z.infer<typeof ScopeRegistration>;

/** No format rule: a name that could not be registered is simply not found (404). */
export const ScopeNameParams = z.object({ name: z.string().min(1).max(MAX_UNSPECIFIED_PARAM) });

const InstanceTransport = z
  .object({
    strategies: Strategies,
    preferred: TransportStrategy.optional(),
    direct: z.object({ host: z.string().min(1).max(255), port: z.number().int().min(1024).max(65535) }).optional(),
  })
  .refine(preferredIsOffered, PREFERRED_NOT_OFFERED);

export const InstanceRegistration = z.object({ scope: CapabilityName, transport: InstanceTransport });
export type InstanceRegistration = z.infer<typeof InstanceRegistration>;

export const InstanceIdParams = z.object({ instanceId: hexId(128) });

/** The instance id part lower-cased (ids are stored lower-case); the capability keeps its case. */
const lowerCaseInstanceId = (instanceScope: string) => {
  const cut = instanceScope.lastIndexOf(':') + 1;
  return instanceScope.slice(0, cut) + instanceScope.slice(cut).toLowerCase();
};

const InstanceScope = z
  .string()
  .min(1)
  .max(MAX_INSTANCE_SCOPE)
  .regex(INSTANCE_SCOPE_FORMAT, 'must be <scope>:<action>:<instanceId>')
  .transform(lowerCaseInstanceId);

export const AssignmentCreate = z.object({ agentLabel: AgentLabel, instanceScope: InstanceScope });
export type AssignmentCreate = z.infer<typeof AssignmentCreate>;

export const AssignmentFilter = z.object({
  agentLabel: z.string().max(MAX_AGENT_LABEL).optional(),
  // in any case, as the create body and the DELETE path take it
  instanceScope: z.string().max(MAX_INSTANCE_SCOPE).transform(lowerCaseInstanceId).optional(),
});
export type AssignmentFilter = z.infer<typeof AssignmentFilter>;

/** Percent-encoded UTF-8 takes at most 12 characters per decoded character (4 bytes as `%XX`). */
const MAX_ENCODED_PER_CHAR = 12;

/** The router leaves path segments percent-encoded; labels may hold any character. */
const decodedSegment = (maxDecoded: number) =>
  z
    .string()
    .max(maxDecoded * MAX_ENCODED_PER_CHAR)
    .transform((segment, ctx) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'malformed percent-encoding' });
        return z.NEVER;
      }
    });
export const AssignmentParams = z.object({
  agentLabel: decodedSegment(MAX_AGENT_LABEL),
  instanceScope: decodedSegment(MAX_INSTANCE_SCOPE).transform(lowerCaseInstanceId),
});

export const TicketRequest = z.object({ scope: CapabilityName, instanceId: hexId(64), target: AgentLabel });
export type TicketRequest = z.infer<typeof TicketRequest>;

export const TicketIdBody = z.object({ ticketId: hexId(128) });
export const TicketIdParams = z.object({ ticketId: hexId(128) });

export const SessionIdParams = z.object({ sessionId: hexId(128) });
/** Only the status: anything else in the body (lastActivityAt included) is dropped. */
export const SessionUpdate = z.object({ status: LiveSessionStatus });
