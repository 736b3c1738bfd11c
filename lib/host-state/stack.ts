// Onboarding's part of the desired host state (provisionedStack in desired.ts): the default server
// and the stack's three vhosts, written in one apply so the adapter tests the whole configuration
// and rolls all of them back when the test or the reload fails; and after a failed run, no vhost of
// the stack left linked without its certificate, or every later nginx reload (tunnels, sites,
// renewals) would fail on it.
import type { ProxyAdapter } from '../system/types.ts';
import type { ProvisionedStack } from './desired.ts';

/**
 * Writes and links the stack, refusing before any write when a certificate is missing. 'put' is
 * by name, so a retry rewrites the same files instead of adding copies. `announce` hears the names
 * before the write.
 */
export async function writeStack(proxy: ProxyAdapter, stack: ProvisionedStack, announce: (names: string[]) => void): Promise<void> {
  const [uncertified] = stack.uncertified;
  if (uncertified) throw new Error(`No valid certificate for ${uncertified.fqdn}`);
  announce(stack.vhosts.map((spec) => proxy.vhostName(spec)));
  await proxy.apply(stack.vhosts.map((spec) => ({ op: 'put' as const, spec, enabled: true })));
}

/** Unlinks the stack's vhosts that are linked without a valid certificate (files are kept for the retry); answers their names. */
export async function unlinkUncertifiedStack(proxy: ProxyAdapter, stack: ProvisionedStack): Promise<string[]> {
  const broken: string[] = [];
  for (const spec of stack.uncertified) {
    const name = proxy.vhostName(spec);
    if ((await proxy.state(name)).enabled) broken.push(name);
  }
  if (broken.length > 0) await proxy.apply(broken.map((name) => ({ op: 'disable' as const, name })));
  return broken;
}
