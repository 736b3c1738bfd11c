import { mapAtMost } from '../map-at-most.ts';
import type { CertsAdapter } from '../system/types.ts';

/**
 * Reads at once: enough to keep the thread pool busy, few enough that a box with thousands of
 * sites does not open thousands of certificate files together.
 */
const CHECKS_AT_ONCE = 16;

/**
 * `certs.has` of each name, answered in the names' order. A start waited on each site's certificate
 * file in turn (a read and a parse each, the thread pool idle in between); these overlap.
 */
export async function haveCertificates(certs: Pick<CertsAdapter, 'has'>, names: readonly string[]): Promise<boolean[]> {
  return mapAtMost(names, CHECKS_AT_ONCE, (name) => certs.has(name));
}
