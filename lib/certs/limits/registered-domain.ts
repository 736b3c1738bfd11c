import { getDomain } from 'tldts';

/**
 * The registered domain a name's certificates count against, as Let's Encrypt decides it: by the
 * Public Suffix List, private section included (`user.github.io` is its own registered domain, as
 * `example.co.uk` is). A name the list cannot split (a bare suffix, an IP) counts as itself.
 */
export function registeredDomain(name: string): string {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return getDomain(lower, { allowPrivateDomains: true }) ?? lower;
}
