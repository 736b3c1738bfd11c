import { z } from 'zod';
import { isCidr } from '../../system/common/cidr.ts';
import { TunnelCreate } from '../schema.ts';

// API inputs of the TCP and UDP tunnels; the stored record shape is lib/state/schemas.ts#StreamRecord.

const MAX_ALLOW_ENTRIES = 64;

// a port typed as words ("ssh") reaches here as text: the message says what to type instead of zod's type names
const anyPort = (what: string) =>
  z.number({ error: `${what} must be a number from 1 to 65535` }).int(`${what} must be an integer`).min(1, `${what} must be at least 1`).max(65535, `${what} must be at most 65535`);

const Allow = z
  // the message names the source: in a list of several, the path's index alone leaves a person counting
  .array(z.string().max(64, 'A source is at most 64 characters').refine(isCidr, { error: (issue) => `'${String(issue.input)}' is not an IPv4 or IPv6 address, nor a network in CIDR form (203.0.113.0/24)` }))
  .max(MAX_ALLOW_ENTRIES, `At most ${MAX_ALLOW_ENTRIES} sources`);

const Description = z.string().max(200, 'Description must be at most 200 characters').nullable();

/** POST /api/tunnels with `protocol` tcp or udp: no subdomain, no certificate. */
export const StreamCreate = z
  .object({
    protocol: z.enum(['tcp', 'udp']),
    /** the port on the box that the world connects to */
    publicPort: anyPort('Public port'),
    /** the port on the client machine the tunnel leads to (22 for SSH, for example) */
    port: anyPort('Port'),
    allow: Allow.default([]),
    proxyProtocol: z.boolean().default(false),
    description: Description.default(''),
  })
  .refine((v) => !(v.proxyProtocol && v.protocol === 'udp'), { path: ['proxyProtocol'], message: 'The PROXY protocol is offered for TCP tunnels only' });
export type StreamCreate = z.infer<typeof StreamCreate>;

/** POST /api/tunnels without `protocol` (or with `http`): the spec's HTTP tunnel, validated exactly as before. */
export const HttpTunnelCreate = TunnelCreate.extend({ protocol: z.literal('http').optional() });

/** PATCH /api/tunnels/streams/:id: any of these, at least one. */
export const StreamSettings = z
  .object({
    publicPort: anyPort('Public port').optional(),
    port: anyPort('Port').optional(),
    allow: Allow.optional(),
    proxyProtocol: z.boolean().optional(),
    description: Description.optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Give a setting to change' });
export type StreamSettings = z.infer<typeof StreamSettings>;
