// What Authelia 4.38 can take in an access rule's `resources` and `networks`: Go's RE2 has no
// lookaround, backreferences, atomic groups or possessive quantifiers, and a pattern that JavaScript
// accepts may still be refused by the portal at start (which would keep every app shut), so such
// constructs are refused here, before anything is written.
import { isCidr } from '../common/cidr.ts';

const RE2_UNSUPPORTED: ReadonlyArray<[RegExp, string]> = [
  [/\(\?<[=!]/, 'lookbehind is not supported by the portal (Go RE2)'],
  [/\(\?[=!]/, 'lookahead is not supported by the portal (Go RE2)'],
  [/\(\?>/, 'atomic groups are not supported by the portal (Go RE2)'],
  [/\\[1-9]|\\k</, 'backreferences are not supported by the portal (Go RE2)'],
  [/[*+?}]\+/, 'possessive quantifiers are not supported by the portal (Go RE2)'],
];

/** Why the portal would refuse this path pattern; null when it compiles under both engines' common rules. */
export function regexProblem(source: string): string | null {
  // an escaped backslash is no construct: drop `\\` pairs before looking for the others
  const plain = source.replace(/\\\\/g, '');
  for (const [construct, why] of RE2_UNSUPPORTED) if (construct.test(plain)) return why;
  try {
    new RegExp(source);
  } catch (error) {
    return `does not compile: ${(error as Error).message}`;
  }
  return null;
}

/** Why this is not an address or a CIDR range as the portal reads `networks`; null when it is. */
export function networkProblem(value: string): string | null {
  return isCidr(value) ? null : 'must be an IP address or a CIDR range';
}
