// Onboarding's part of the desired host state (desired.ts): the default server and the stack's
// three vhosts, written in one apply so the adapter tests the whole configuration and rolls all of
// them back when the test or the reload fails; and after a failed run, no vhost of the stack left
// linked without its certificate, or every later nginx reload (tunnels, sites, renewals) would fail on it.
import type { System } from '../system/types.ts';
import { provisionedStack } from './desired.ts';

/**
 * Writes and links the stack of `domain`, refusing before any write when a certificate is missing.
 * 'put' is by name, so a retry rewrites the same files instead of adding copies. `announce` hears
 * the names before the write.
 */
export async function writeStack(system: Pick<System, 'certs' | 'proxy'>, domain: string, announce: (names: string[]) => void): Promise<void> {
  const stack = await provisionedStack(system.certs, domain);
  const [uncertified] = stack.uncertified;
  if (uncertified) throw new Error(`No valid certificate for ${uncertified.fqdn}`);
  announce(stack.vhosts.map((spec) => system.proxy.vhostName(spec)));
  await system.proxy.apply(stack.vhosts.map((spec) => ({ op: 'put' as const, spec, enabled: true })));
}

/** Unlinks the stack's vhosts that are linked without a valid certificate (files are kept for the retry); answers their names. */
export async function unlinkUncertifiedStack(system: Pick<System, 'certs' | 'proxy'>, domain: string): Promise<string[]> {
  const broken: string[] = [];
  for (const spec of (await provisionedStack(system.certs, domain)).uncertified) {
    const name = system.proxy.vhostName(spec);
    if ((await system.proxy.state(name)).enabled) broken.push(name);
  }
  if (broken.length > 0) await system.proxy.apply(broken.map((name) => ({ op: 'disable' as const, name })));
  return broken;
}
