import { z } from 'zod';

export const PluginNameParams = z.object({ name: z.string().max(63).regex(/^[a-z0-9][a-z0-9-]*$/, 'must be a plugin name') });
export type PluginNameParams = z.infer<typeof PluginNameParams>;

/** POST /api/plugins/install: an npm registry name under an allowed scope, or a `file:` tarball. */
export const PluginInstall = z.object({ spec: z.string().min(1).max(4096) }).strict();
export type PluginInstall = z.infer<typeof PluginInstall>;
