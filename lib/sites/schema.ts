import { z } from 'zod';
import { Username } from '../users/schema.ts';
import { UuidParam } from '../uuid-param.ts';

// API inputs of the site endpoints; the stored record shape is lib/state/schemas.ts#SiteRecord.

const NAME_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const DOMAIN_PATTERN = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;

/** Subdomains the box itself serves, or that people expect to be special (same list as tunnels). */
export const RESERVED_SITE_NAMES: ReadonlySet<string> = new Set(['panel', 'auth', 'tunnel', 'www', 'mail', 'ftp', 'api']);

export const SiteCreate = z.object({
  name: z
    .string()
    .min(1, 'Name is required')
    .max(100, 'Name must be at most 100 characters')
    .regex(NAME_PATTERN, 'Name may contain only lowercase letters, digits and hyphens, and may not start or end with a hyphen'),
  type: z.enum(['managed', 'custom']),
  customDomain: z
    .string()
    .max(253, 'Domain must be at most 253 characters')
    .regex(DOMAIN_PATTERN, 'Domain may contain only lowercase letters, digits, dots and hyphens')
    .optional(),
  spaMode: z.boolean().default(false),
  autheliaProtected: z.boolean().default(false),
});
export type SiteCreate = z.infer<typeof SiteCreate>;

export const SitePatch = z.object({
  spaMode: z.boolean().optional(),
  autheliaProtected: z.boolean().optional(),
  // each entry must be a name a portal user can have: the portal's access rules are written from every
  // protected site, so one impossible name would break them for all sites
  // (the max before the pipe bounds the input the OpenAPI document describes; Username repeats it on the output side)
  allowedUsers: z.array(z.string().min(1, 'A username must not be empty').max(32, 'Username must be at most 32 characters').pipe(Username)).max(1000).optional(),
});
export type SitePatch = z.infer<typeof SitePatch>;

/** Not a UUID: 400 before any lookup; a UUID that names no site: 404 `Site not found`. */
export const SiteIdParams = z.object({ id: UuidParam });
export type SiteIdParams = z.infer<typeof SiteIdParams>;

export const FilesQuery = z.object({ path: z.string().max(1024, 'Path must be at most 1024 characters').default('.') });
export type FilesQuery = z.infer<typeof FilesQuery>;

export const FileDelete = z.object({
  path: z.string({ error: 'Path is required' }).min(1, 'Path is required').max(1024, 'Path must be at most 1024 characters'),
});
export type FileDelete = z.infer<typeof FileDelete>;
