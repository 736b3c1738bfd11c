import { realpath } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { badRequest } from '../errors.ts';

/** `@scope/name` with an optional version or tag; never starts with `-`, so npm cannot read it as an option. */
const REGISTRY_SPEC = /^(@[a-z0-9][a-z0-9._-]*)\/[a-z0-9][a-z0-9._-]*(?:@[A-Za-z0-9][A-Za-z0-9.^~<>=*+ -]*)?$/;
const TARBALL = /\.(tgz|tar\.gz)$/;

export interface SpecRules {
  allowedScopes: readonly string[];
  localDir: string | undefined;
  /** Development mode: any `file:` tarball. */
  anyTarball: boolean;
}

/**
 * What npm is asked to install: a registry name under an allowed scope, or an absolute `file:`
 * tarball under the local folder (anywhere in development mode). Symbolic links are resolved
 * first, so a link in the local folder cannot point outside it.
 */
export async function checkSpec(spec: string, rules: SpecRules): Promise<string> {
  if (spec.startsWith('file:')) return `file:${await checkTarball(spec.slice(5), rules)}`;
  const registry = REGISTRY_SPEC.exec(spec);
  if (!registry) throw badRequest('Plugin spec must be an npm name under an allowed scope (@scope/name) or a file: tarball');
  if (!rules.allowedScopes.includes(registry[1]!)) throw badRequest(`Scope ${registry[1]} is not in plugins.allowedScopes`);
  return spec;
}

async function checkTarball(path: string, rules: SpecRules): Promise<string> {
  if (!isAbsolute(path) || !TARBALL.test(path)) throw badRequest('A file: plugin spec must be an absolute path to a .tgz tarball');
  const real = await realpath(path).catch(() => {
    throw badRequest(`Plugin tarball not found: ${path}`);
  });
  if (rules.anyTarball) return real;
  if (!rules.localDir) throw badRequest('file: plugins need plugins.localDir in the configuration');
  const root = await realpath(rules.localDir).catch(() => rules.localDir!);
  if (!real.startsWith(root.endsWith(sep) ? root : root + sep)) throw badRequest(`Plugin tarball must be under ${rules.localDir}`);
  return real;
}
