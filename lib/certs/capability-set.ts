import { BASE_CAPABILITIES } from '../auth/capabilities.ts';
import { AppError } from '../errors.ts';

const BASE: ReadonlySet<string> = new Set(BASE_CAPABILITIES);

/**
 * The capabilities an agent may be granted right now: the base ones plus those declared by the
 * registered ticket scopes (read live, so a scope registered a moment ago counts).
 */
export class CapabilitySet {
  constructor(private readonly scopeCapabilities: () => ReadonlySet<string>) {}

  has(name: string): boolean {
    return BASE.has(name) || this.scopeCapabilities().has(name);
  }

  /** 400 `Unknown capability '<name>'` for the first name outside the set; duplicates are dropped. */
  check(names: readonly string[]): string[] {
    const unknown = names.find((name) => !this.has(name));
    if (unknown !== undefined) throw new AppError(400, `Unknown capability '${unknown}'`, { capability: unknown });
    return [...new Set(names)];
  }
}
