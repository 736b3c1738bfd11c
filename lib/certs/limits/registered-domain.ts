import type * as Tldts from 'tldts';

/** tldts carries the Public Suffix List (130 KiB): loaded at the first count, not at start-up. */
let tldts: typeof Tldts | undefined;

export async function loadPublicSuffixList(): Promise<void> {
  tldts ??= await import('tldts');
}

/**
 * The registered domain a name's certificates count against, as Let's Encrypt decides it: by the
 * Public Suffix List, private section included (`user.github.io` is its own registered domain, as
 * `example.co.uk` is). A name the list cannot split (a bare suffix, an IP) counts as itself.
 * Call after `loadPublicSuffixList()`.
 */
export function registeredDomain(name: string): string {
  if (!tldts) throw new Error('the Public Suffix List is not loaded yet (loadPublicSuffixList)');
  const lower = name.toLowerCase().replace(/\.$/, '');
  return tldts.getDomain(lower, { allowPrivateDomains: true }) ?? lower;
}
