// What POST /api/onboarding/domain accepts: a bare FQDN (the base of panel., auth., tunnel. and
// every tunnel and site) and an email for certificate registration.
import { z } from 'zod';
import { isFqdn } from '../system/common/names.ts';

/** The longest base whose `tunnel.` subdomain is still a valid 253-character name. */
const MAX_DOMAIN_LENGTH = 253 - 'tunnel.'.length;
/** Raw inputs are bounded before trimming; a long domain still gets domainProblem's own message. */
const MAX_RAW_DOMAIN_INPUT = 1024;
/** RFC 5321's limit on a forward path. */
const MAX_EMAIL_LENGTH = 254;

/** Why `domain` (already trimmed and lowercased) is not a bare FQDN, or null when it is one. */
export function domainProblem(domain: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/.test(domain) && domain.includes('//')) return 'must not include a scheme such as https://';
  if (/[/?#]/.test(domain)) return 'must not include a path';
  if (domain.includes('*')) return 'must not be a wildcard; enter the base domain, for example example.com';
  if (domain.includes(':')) return 'must not include a port';
  if (domain.endsWith('.')) return 'must not end with a dot';
  if (domain.length > MAX_DOMAIN_LENGTH) return `must be at most ${MAX_DOMAIN_LENGTH} characters, so that its subdomains stay valid names`;
  if (/^[0-9]+$/.test(domain.split('.').pop() ?? '')) return 'must be a domain name, not an IP address';
  if (!isFqdn(domain)) {
    return 'must be a fully qualified domain name such as example.com: at least two labels of letters, digits and inner hyphens';
  }
  return null;
}

/**
 * Names under `localhost` (RFC 6761) resolve to loopback on every machine, in the browser itself:
 * the sandbox's default domain (`relay.localhost`), which its own server answers. A real host can
 * get no certificate for them and nobody else reaches them, so only the sandbox takes one.
 */
export function localDomainProblem(domain: string, sandbox: boolean): string | null {
  if (sandbox || !(domain === 'localhost' || domain.endsWith('.localhost'))) return null;
  return 'must be a public domain name: names under .localhost resolve only on the machine that asks, and get no certificate';
}

export const DomainInput = z.object({
  // DNS names are case-insensitive; certificates, vhost file names and comparisons use lowercase
  domain: z
    .string()
    .max(MAX_RAW_DOMAIN_INPUT)
    .trim()
    .toLowerCase()
    .superRefine((value, ctx) => {
      const problem = domainProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  // certbot gets it as the argument after --email: one starting with '-' would be read as an option
  email: z
    .string()
    .max(MAX_RAW_DOMAIN_INPUT)
    .trim()
    .pipe(z.email('must be a valid email address').max(MAX_EMAIL_LENGTH).refine((e) => !e.startsWith('-'), 'must not start with "-"')),
});

export type DomainInput = z.infer<typeof DomainInput>;
