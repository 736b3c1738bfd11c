// SSRF guard for `transport.direct.host`: other agents will connect to this address, so it must
// not point them (or the box) at loopback, private networks, a cloud metadata service or the relay.
// Every spelling is first reduced to one canonical form by the WHATWG URL host parser, which
// already turns decimal, octal, hex and short IPv4 (2130706433, 0177.1, 0x7f.0.0.1), percent
// escapes, full-width digits and upper case into the plain form; then ipaddr.js classifies the
// address against the IANA special-purpose registries.
import ipaddr from 'ipaddr.js';

/** Names that reach metadata services or the local machine whatever DNS says. */
const BLOCKED_HOSTNAMES: ReadonlySet<string> = new Set([
  'localhost',
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.com',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);

/**
 * Names that never resolve publicly: special-use domains (RFC 6761, RFC 6762, RFC 8375, ICANN
 * .internal) and Kubernetes service names (`kubernetes.default.svc`).
 */
const BLOCKED_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.svc'];

/**
 * IPv6 ranges ipaddr.js calls unicast but that are not global: IPv4-compatible ::/96 (deprecated
 * by RFC 4291, `::127.0.0.1`) and the RFC 9780 dummy prefix.
 */
const MORE_BLOCKED_IPV6 = [ipaddr.parseCIDR('::/96'), ipaddr.parseCIDR('100:0:0:1::/64')] as [ipaddr.IPv6, number][];

/** Local-use NAT64 (RFC 8215): where the IPv4 address sits depends on the operator's prefix length. */
const LOCAL_USE_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48') as [ipaddr.IPv6, number];

/** Characters that would make the URL parser read part of the value as something else than the host. */
const NOT_A_HOST = /[\s/\\?#@]/;

/**
 * Whether other agents may be sent to `raw`: a public address, or a name that is not special-use
 * and is not the relay's own domain (`relayDomain`) or one of its subdomains. Names are not resolved.
 */
export function isPublicHost(raw: string, relayDomain: string | null): boolean {
  const host = canonicalHost(raw);
  if (host === null) return false;
  if (host.includes(':')) return ipaddr.IPv6.isValid(host) && isPublicIpv6(ipaddr.IPv6.parse(host));
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return isPublicIpv4(ipaddr.IPv4.parse(host));
  return isPublicHostname(host, relayDomain);
}

/** Lower-case, numeric IPv4 in dotted form, compressed IPv6 without brackets, no trailing dot; null when unparseable. */
function canonicalHost(raw: string): string | null {
  let host = raw.trim();
  if (host === '' || NOT_A_HOST.test(host)) return null;
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  try {
    const parsed = host.includes(':') ? new URL(`http://[${host}]/`).hostname.slice(1, -1) : new URL(`http://${host}/`).hostname;
    const trimmed = parsed.replace(/\.+$/, '');
    return trimmed === '' ? null : trimmed;
  } catch {
    return null;
  }
}

function isPublicIpv4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

/** The IPv4 address in groups `at` and `at + 1` of an IPv6 address, every bit XORed with `flip` (Teredo inverts them). */
function ipv4At(groups: readonly number[], at: number, flip = 0): ipaddr.IPv4 {
  const high = groups[at];
  const low = groups[at + 1];
  if (high === undefined || low === undefined) throw new Error(`IPv6 address has no groups ${at} and ${at + 1}`);
  const h = high ^ flip;
  const l = low ^ flip;
  return ipaddr.fromByteArray([h >> 8, h & 0xff, l >> 8, l & 0xff]) as ipaddr.IPv4;
}

function isPublicIpv6(address: ipaddr.IPv6): boolean {
  const g = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return isPublicIpv4(ipv4At(g, 6));
    case 'rfc6052': // NAT64 64:ff9b::a.b.c.d
      return !address.match(LOCAL_USE_NAT64) && isPublicIpv4(ipv4At(g, 6));
    case '6to4': // 2002:AABB:CCDD::
      return isPublicIpv4(ipv4At(g, 1));
    case 'teredo': // 2001:0:<server>:<flags>:<port>:<client, every bit inverted>
      return isPublicIpv4(ipv4At(g, 2)) && isPublicIpv4(ipv4At(g, 6, 0xffff));
    case 'unicast':
      return !MORE_BLOCKED_IPV6.some((range) => address.match(range));
    default:
      return false;
  }
}

function isPublicHostname(host: string, relayDomain: string | null): boolean {
  // A single label is resolved through search domains, that is inside the network.
  if (!host.includes('.')) return false;
  if (BLOCKED_HOSTNAMES.has(host)) return false;
  if (relayDomain && (host === relayDomain || host.endsWith(`.${relayDomain}`))) return false;
  return !BLOCKED_SUFFIXES.some((suffix) => host.endsWith(suffix));
}
