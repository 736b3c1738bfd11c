import { z } from 'zod';

/** An npm scope (`@acme`): only packages published under an allowed one may be installed from the registry. */
export const NpmScope = z.string().max(214).regex(/^@[a-z0-9][a-z0-9._-]*$/, 'must be an npm scope like @acme');

/** `plugins.allowedScopes` in the configuration, and the body of PATCH /api/plugins/settings. */
export const AllowedScopes = z.array(NpmScope).max(100);

/** GET /api/plugins/settings, and what PATCH takes: the whole list, which replaces the stored one. */
export const PluginSettings = z.object({ allowedScopes: AllowedScopes }).strict();
export type PluginSettings = z.infer<typeof PluginSettings>;
