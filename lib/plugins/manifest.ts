import { z } from 'zod';
import { badRequest } from '../errors.ts';
import { describeZodIssues } from '../state/zod-issues.ts';

/**
 * API prefixes no plugin may take: the spec's list and the panel's own names. The first segments of
 * the built-in route table are added by the host (PluginHost.reservedNames), so a new handler
 * folder is reserved without touching this list.
 */
export const RESERVED_PLUGIN_NAMES: ReadonlySet<string> = new Set([
  'health', 'onboarding', 'invite', 'enroll', 'tunnels', 'sites', 'system', 'services', 'logs', 'users',
  'certs', 'invitations', 'plugins', 'tickets', 'settings', 'assets', 'auth', 'admin', 'api',
  // /api/plugins/push-install/... would shadow /api/plugins/<name>/enable for a plugin of this name
  'push-install',
]);

/** A path inside the package: relative, no `..` segment, no backslash. */
const packagePath = z
  .string()
  .min(1)
  .max(1024)
  .refine((p) => !p.startsWith('/') && !p.includes('\\') && !p.split('/').includes('..'), 'must be a path inside the package');

/** The `relayPanel` key of a plugin's package.json. */
export const PluginManifest = z
  .object({
    name: z.string().min(1).max(63).regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes'),
    displayName: z.string().min(1).max(100),
    capabilities: z.array(z.string().regex(/^[a-z0-9-]+:[a-z0-9-]+$/, 'must look like scope:action').max(100)).max(50).default([]),
    server: packagePath,
    panel: packagePath.optional(),
  })
  .strict();
export type PluginManifest = z.infer<typeof PluginManifest>;

/** The parts of package.json the panel reads besides `relayPanel`. */
const PackageJson = z.object({
  name: z.string().min(1).max(214),
  version: z.string().min(1).max(64),
  description: z.string().max(1000).optional(),
  relayPanel: z.unknown(),
});

export interface InstalledPackage {
  packageName: string;
  version: string;
  description: string;
  manifest: PluginManifest;
}

/** 400 `Invalid plugin manifest: <problem>` for anything a plugin's package.json gets wrong. */
export function readManifest(packageJson: unknown, reserved: ReadonlySet<string>): InstalledPackage {
  const pkg = PackageJson.safeParse(packageJson);
  if (!pkg.success) throw invalid(`package.json: ${describeZodIssues(pkg.error.issues)}`);
  if (pkg.data.relayPanel === undefined) throw invalid(`package ${pkg.data.name} has no relayPanel key`);
  const manifest = PluginManifest.safeParse(pkg.data.relayPanel);
  if (!manifest.success) throw invalid(`relayPanel: ${describeZodIssues(manifest.error.issues)}`);
  const { name } = manifest.data;
  if (RESERVED_PLUGIN_NAMES.has(name) || reserved.has(name)) throw invalid(`name '${name}' is a reserved API prefix`);
  return { packageName: pkg.data.name, version: pkg.data.version, description: pkg.data.description ?? '', manifest: manifest.data };
}

const invalid = (problem: string) => badRequest(`Invalid plugin manifest: ${problem}`);
