import { z } from 'zod';

export const PluginNameParams = z.object({ name: z.string().max(63).regex(/^[a-z0-9][a-z0-9-]*$/, 'must be a plugin name') });
export type PluginNameParams = z.infer<typeof PluginNameParams>;

/**
 * POST /api/plugins/install: `spec`, an npm registry name under an allowed scope or a `file:`
 * tarball; or Portlama's `packageName`, read as the same spec (its own checks are the spec's).
 */
export const PluginInstall = z
  .object({ spec: z.string().min(1).max(4096).optional(), packageName: z.string().min(1).max(214).optional() })
  .strict()
  .refine((b) => (b.spec === undefined) !== (b.packageName === undefined), 'name the package in spec or packageName, one of them')
  .transform((b) => ({ spec: (b.spec ?? b.packageName)! }));
export type PluginInstall = z.output<typeof PluginInstall>;
