import ipaddr from 'ipaddr.js';
import { z } from 'zod';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** An address or a CIDR range, IPv4 (Portlama's) or IPv6: `192.168.1.0/24`, `10.0.0.5`, `fd00::/8`. */
export const IpEntry = z
  .string()
  .max(64)
  .refine((entry) => parseEntry(entry) !== undefined, 'must be an IPv4 or IPv6 address or CIDR range (e.g. 192.168.1.0/24)');

/** A prefix length as the rules have always taken it: one to three digits (`/024` is 24), bounded by the family. */
const PREFIX = /^\d{1,3}$/;

/**
 * Only the usual spellings, the ones node's isIP took before ipaddr.js: ipaddr.js also reads IPv4
 * as fewer parts, octal or hex (`10.1`, `010.0.0.1`, `0x0a.0.0.1`, `167772161`), also as the tail
 * of an IPv6 address (`::ffff:010.0.0.1`). Those are refused, so `10.1` is never silently 10.0.0.1.
 */
function isPlainAddress(text: string): boolean {
  if (ipaddr.IPv4.isValid(text)) return ipaddr.IPv4.isValidFourPartDecimal(text);
  if (!ipaddr.IPv6.isValid(text)) return false;
  const tail = text.slice(text.lastIndexOf(':') + 1);
  return !tail.includes('.') || ipaddr.IPv4.isValidFourPartDecimal(tail);
}

/**
 * ipaddr.js reads `::a.b.c.d`, the deprecated IPv4-compatible address (RFC 4291 2.5.5.1), as the
 * mapped `::ffff:a.b.c.d`, which would match the IPv4 client a.b.c.d; written `0::a.b.c.d` it
 * reads it as what it is.
 */
const IPV4_COMPATIBLE = /^::\d+\./;

/**
 * The zone of an IPv6 address (`fe80::1%br-lan`, RFC 4007) names an interface, it is not part of
 * the address: matching has always ignored it. ipaddr.js would refuse the `-` of many interface
 * names, so it is taken off first; the characters are the ones node's isIP took.
 */
const ZONED_IPV6 = /^([^%]*:[^%]*)%[0-9a-z.:-]+$/i;

function withoutZone(text: string): string {
  return ZONED_IPV6.exec(text)?.[1] ?? text;
}

/** The address without its zone, when ipaddr.js will read it as written; else undefined. */
function plainText(text: string): string | undefined {
  const bare = withoutZone(text).replace(IPV4_COMPATIBLE, '0$&');
  return isPlainAddress(bare) ? bare : undefined;
}

function parseEntry(entry: string): Range | undefined {
  const [text = '', prefix, ...more] = entry.split('/');
  const address = plainText(text);
  if (more.length > 0 || address === undefined) return undefined;
  if (prefix === undefined) {
    const single = ipaddr.parse(address);
    return [single, single.kind() === 'ipv4' ? 32 : 128];
  }
  if (!PREFIX.test(prefix)) return undefined;
  try {
    return ipaddr.parseCIDR(`${address}/${prefix}`);
  } catch {
    return undefined; // the prefix is longer than the family's
  }
}

/**
 * An IPv4 client is also `::ffff:a.b.c.d`, so an IPv6 range of mapped addresses takes it, as
 * node's BlockList did before ipaddr.js; an IPv6 client never falls in an IPv4 range.
 */
function inRange(client: Address, range: Range): boolean {
  const network = range[0];
  if (client.kind() === network.kind()) return client.match(network, range[1]);
  return client instanceof ipaddr.IPv4 && client.toIPv4MappedAddress().match(network, range[1]);
}

function anyMatch(client: Address, ranges: readonly Range[]): boolean {
  return ranges.some((range) => inRange(client, range));
}

/**
 * Entries are checked when a policy is saved, but the stored file takes any string (a hand edit,
 * an older release): a list with an entry that does not parse is undefined, and the rule then
 * refuses every source rather than skip a deny it cannot read.
 */
function rangesOf(entries: readonly string[]): Range[] | undefined {
  const ranges = entries.map(parseEntry);
  return ranges.every((range) => range !== undefined) ? (ranges as Range[]) : undefined;
}

/**
 * Portlama's rule for a policy's source addresses: a denied match refuses, and a non-empty allow
 * list must match; empty lists allow any. An unknown address passes only when both lists are
 * empty, so a rule is never skipped for want of an address, nor for an entry that does not parse. An IPv4 client seen through an IPv6
 * socket (`::ffff:a.b.c.d`) is matched as the IPv4 address it is.
 */
export function sourceAllowed(address: string | undefined, allowed: readonly string[], denied: readonly string[]): boolean {
  if (allowed.length === 0 && denied.length === 0) return true;
  const plain = address === undefined ? undefined : plainText(address);
  if (plain === undefined) return false;
  const [allow, deny] = [rangesOf(allowed), rangesOf(denied)];
  if (allow === undefined || deny === undefined) return false;
  const client = ipaddr.process(plain);
  if (anyMatch(client, deny)) return false;
  return allow.length === 0 || anyMatch(client, allow);
}
