// POST /api/onboarding/verify-dns: the base domain must resolve to the host ip (required); a random
// probe subdomain tells whether a wildcard record exists (advisory: without it every subdomain
// needs its own record).
import { randomBytes } from 'node:crypto';
import { errorMessage } from '../errors.ts';
import type { DnsAdapter } from '../system/types.ts';

export interface NameCheck {
  name: string;
  addresses: string[];
  ok: boolean;
  /** the resolver's own failure (SERVFAIL, timeout), when it did not answer */
  error?: string;
}

export interface DnsReport {
  domain: string;
  ip: string;
  base: NameCheck;
  wildcard: NameCheck;
  message: string;
}

function probeName(domain: string): string {
  return `relay-probe-${randomBytes(5).toString('hex')}.${domain}`;
}

async function check(dns: DnsAdapter, name: string, ip: string): Promise<NameCheck> {
  try {
    const addresses = await dns.resolve4(name);
    // every answer must be ours: a second address would send ACME and visitors elsewhere at random
    return { name, addresses, ok: addresses.length > 0 && addresses.every((a) => a === ip) };
  } catch (error) {
    return { name, addresses: [], ok: false, error: errorMessage(error) };
  }
}

function describe(c: NameCheck, ip: string): string {
  if (c.ok) return `${c.name} resolves to ${ip}`;
  if (c.error) return `${c.name} could not be resolved (${c.error})`;
  if (c.addresses.length === 0) return `${c.name} does not resolve`;
  return `${c.name} resolves to ${c.addresses.join(', ')}, not to this host (${ip})`;
}

export async function checkDns(dns: DnsAdapter, domain: string, ip: string, probe = probeName(domain)): Promise<DnsReport> {
  const [base, wildcard] = await Promise.all([check(dns, domain, ip), check(dns, probe, ip)]);
  const baseText = base.ok ? `${describe(base, ip)}.` : `${describe(base, ip)}. Point an A record for ${domain} to ${ip} and check again.`;
  const wildcardText = wildcard.ok
    ? 'Wildcard DNS works: every subdomain reaches this host.'
    : `No wildcard record (${describe(wildcard, ip)}). You can continue, but panel., auth., tunnel. and every tunnel or site subdomain need their own A record pointing to ${ip}.`;
  return { domain, ip, base, wildcard, message: `${baseText} ${wildcardText}` };
}
