import { BlockList, isIP } from 'node:net';
import { z } from 'zod';

/** An address or a CIDR range, IPv4 (Portlama's) or IPv6: `192.168.1.0/24`, `10.0.0.5`, `fd00::/8`. */
export const IpEntry = z
  .string()
  .max(64)
  .refine((entry) => parseEntry(entry) !== undefined, 'must be an IPv4 or IPv6 address or CIDR range (e.g. 192.168.1.0/24)');

function parseEntry(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText, ...rest] = entry.split('/');
  const version = isIP(address);
  if (!version || rest.length > 0) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
  return prefix >= 0 && prefix <= max ? { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' } : undefined;
}

function listOf(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = parseEntry(entry);
    if (parsed) list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return list;
}

/** An IPv4 client seen through an IPv6 socket (`::ffff:a.b.c.d`) is matched as the IPv4 address it is. */
const plain = (address: string) => (address.toLowerCase().startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address);

/**
 * Portlama's rule for a policy's source addresses: a denied match refuses, and a non-empty allow
 * list must match; empty lists allow any. An unknown address passes only when both lists are
 * empty, so a rule is never skipped for want of an address.
 */
export function sourceAllowed(address: string | undefined, allowed: readonly string[], denied: readonly string[]): boolean {
  if (allowed.length === 0 && denied.length === 0) return true;
  if (address === undefined || !isIP(plain(address))) return false;
  const ip = plain(address);
  const family = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
  if (listOf(denied).check(ip, family)) return false;
  return allowed.length === 0 || listOf(allowed).check(ip, family);
}
