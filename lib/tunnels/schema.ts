import { z } from 'zod';
import { UuidParam } from '../uuid-param.ts';

// API inputs of the tunnel endpoints; the stored record shape is lib/state/schemas.ts#TunnelRecord.

const SUBDOMAIN_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** Names the box itself serves (panel, portal, tunnel endpoint) or that people expect to be special. */
export const RESERVED_SUBDOMAINS: ReadonlySet<string> = new Set(['panel', 'auth', 'tunnel', 'www', 'mail', 'ftp', 'api']);

export const TunnelCreate = z.object({
  subdomain: z
    .string()
    .max(63, 'Subdomain must be at most 63 characters')
    .regex(SUBDOMAIN_PATTERN, 'Subdomain may contain only lowercase letters, digits and hyphens, and may not start or end with a hyphen'),
  port: z.number().int('Port must be an integer').min(1024, 'Port must be at least 1024').max(65535, 'Port must be at most 65535'),
  description: z.string().max(200, 'Description must be at most 200 characters').nullable().default(''),
});
export type TunnelCreate = z.infer<typeof TunnelCreate>;

/**
 * PATCH /api/tunnels/:id/settings: what an edit may change (the subdomain names the certificate and
 * the vhost, so it stays); either field alone, at least one. Same rules as a create's.
 */
export const TunnelSettings = z
  .object({
    port: TunnelCreate.shape.port.optional(),
    description: z.string().max(200, 'Description must be at most 200 characters').nullable().optional(),
  })
  .refine((v) => v.port !== undefined || v.description !== undefined, { message: 'Give a port or a description to change' });
export type TunnelSettings = z.infer<typeof TunnelSettings>;

export const TunnelToggle = z.object({ enabled: z.boolean() });
export type TunnelToggle = z.infer<typeof TunnelToggle>;

/** Not a UUID: 400 before any lookup; a UUID that names no tunnel: 404 `Tunnel not found`. */
export const TunnelIdParams = z.object({ id: UuidParam });
export type TunnelIdParams = z.infer<typeof TunnelIdParams>;

export const MacPlistQuery = z.object({ format: z.enum(['json']).optional() });
/** `?format=json`: the launchd job's text and how to install, run and remove it (lib/tunnels/client-config.ts). */
export const MacPlistJson = z.object({
  plist: z.string(),
  instructions: z.object({ prerequisite: z.string(), download: z.string(), install: z.string(), status: z.string(), logs: z.string(), uninstall: z.string() }),
});
export type MacPlistJson = z.infer<typeof MacPlistJson>;
export type MacPlistQuery = z.infer<typeof MacPlistQuery>;
