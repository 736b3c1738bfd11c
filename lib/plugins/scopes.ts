import { z } from 'zod';
import { AllowedScopes } from '../config.ts';

/** GET /api/plugins/settings, and what PATCH takes: the whole list, which replaces the stored one (the scopes' schema is the configuration's). */
export const PluginSettings = z.object({ allowedScopes: AllowedScopes }).strict();
export type PluginSettings = z.infer<typeof PluginSettings>;
