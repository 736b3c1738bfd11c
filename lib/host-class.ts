// The SSRF guard shared by everything the box (or other agents) is told to connect to: ticket
// instances' `transport.direct.host` and alert webhooks. Every spelling is first reduced to one
// canonical form by the WHATWG URL host parser, which already turns decimal, octal, hex and short
// IPv4 (2130706433, 0177.1, 0x7f.0.0.1), percent escapes, full-width digits and upper case into the
// plain form; then ipaddr.js classifies the address against the IANA special-purpose registries.
//
// Three classes: `public`; `private`, the operator's own networks (loopback, RFC 1918, CGNAT, unique
// local, names that only resolve inside), which alert webhooks may reach when an admin allows it;
// `never`, what is no receiver at all (unspecified, link-local, multicast, broadcast, reserved and
// documentation ranges, cloud metadata services), refused whatever is allowed.
import ipaddr from 'ipaddr.js';

export type HostClass =
  | { kind: 'public' }
  /** `what` says why, for an error message: "a loopback address (127.0.0.1)" */
  | { kind: 'private' | 'never'; what: string };

/** Names that reach metadata services whatever DNS says. */
const METADATA_HOSTNAMES: ReadonlySet<string> = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.com',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);

/** Names of the local machine whatever DNS says. */
const LOCAL_HOSTNAMES: ReadonlySet<string> = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

/** Metadata services outside link-local: AWS's IPv6 one (unique local) and Alibaba's (CGNAT). */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set(['fd00:ec2::254', '100.100.100.200']);

/**
 * Names that never resolve publicly: special-use domains (RFC 6761, RFC 6762, RFC 8375, ICANN
 * .internal) and Kubernetes service names (`kubernetes.default.svc`).
 */
const INWARD_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.svc'];

/** RFC 9780's dummy prefix, which ipaddr.js calls unicast. */
const DUMMY_IPV6 = ipaddr.parseCIDR('100:0:0:1::/64') as [ipaddr.IPv6, number];
/** IPv4-compatible ::/96 (deprecated by RFC 4291, `::127.0.0.1`), which ipaddr.js calls unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

/** Local-use NAT64 (RFC 8215): where the IPv4 address sits depends on the operator's prefix length. */
const LOCAL_USE_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48') as [ipaddr.IPv6, number];

/** Characters that would make the URL parser read part of the value as something else than the host. */
const NOT_A_HOST = /[\s/\\?#@]/;

/** What each ipaddr.js range is, and whether an operator's private network can hold a receiver there. */
const RANGES: Record<string, { kind: 'private' | 'never'; name: string }> = {
  loopback: { kind: 'private', name: 'a loopback address' },
  private: { kind: 'private', name: 'a private (RFC 1918) address' },
  carrierGradeNat: { kind: 'private', name: 'a shared (CGNAT, 100.64.0.0/10) address' },
  uniqueLocal: { kind: 'private', name: 'a unique local (fc00::/7) address' },
  deprecatedSiteLocal: { kind: 'private', name: 'a site-local (fec0::/10) address' },
  unspecified: { kind: 'never', name: 'the unspecified address' },
  linkLocal: { kind: 'never', name: 'a link-local address' },
  multicast: { kind: 'never', name: 'a multicast address' },
  broadcast: { kind: 'never', name: 'the broadcast address' },
};
const RESERVED = { kind: 'never', name: 'a reserved address' } as const;

const PUBLIC: HostClass = { kind: 'public' };

/**
 * Whether other agents may be sent to `raw`: a public address, or a name that is not special-use
 * and is not the relay's own domain (`relayDomain`) or one of its subdomains. Names are not resolved.
 */
export function isPublicHost(raw: string, relayDomain: string | null): boolean {
  return classifyHost(raw, relayDomain).kind === 'public';
}

/** The class of a host as written (an address in any spelling, or a name, which is not resolved). */
export function classifyHost(raw: string, relayDomain: string | null): HostClass {
  const host = canonicalHost(raw);
  if (host === null) return { kind: 'never', what: 'not a host name or address' };
  if (host.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(host)) {
    return ipaddr.isValid(host) ? classifyAddress(host) : { kind: 'never', what: 'not a host name or address' };
  }
  return classifyHostname(host, relayDomain);
}

/** The class of an IP address in its plain form (`127.0.0.1`, `::1`), as a resolver answers it. */
export function classifyAddress(text: string): HostClass {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(text);
  } catch {
    return { kind: 'never', what: `not an IP address (${text})` };
  }
  const plain = address.toString();
  if (METADATA_ADDRESSES.has(plain)) return { kind: 'never', what: `a cloud metadata service (${plain})` };
  const verdict = address.kind() === 'ipv4' ? ipv4Class(address as ipaddr.IPv4) : ipv6Class(address as ipaddr.IPv6);
  return verdict.kind === 'public' ? verdict : { kind: verdict.kind, what: `${verdict.what} (${plain})` };
}

/** Lower-case, numeric IPv4 in dotted form, compressed IPv6 without brackets, no trailing dot; null when unparseable. */
export function canonicalHost(raw: string): string | null {
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

function ipv4Class(address: ipaddr.IPv4): HostClass {
  const range = address.range();
  if (range === 'unicast') return PUBLIC;
  const known = RANGES[range] ?? RESERVED;
  return { kind: known.kind, what: known.name };
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

/** An IPv6 address that carries an IPv4 one is what that IPv4 address is. */
function embedding(form: string, inner: ipaddr.IPv4): HostClass {
  if (METADATA_ADDRESSES.has(inner.toString())) return { kind: 'never', what: `${form} cloud metadata service` };
  const verdict = ipv4Class(inner);
  return verdict.kind === 'public' ? verdict : { kind: verdict.kind, what: `${form} ${verdict.what.replace(/^(a|the) /, '')}` };
}

function ipv6Class(address: ipaddr.IPv6): HostClass {
  const g = address.parts;
  const range = address.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return embedding('an IPv4-mapped', ipv4At(g, 6));
    case 'rfc6052': // NAT64 64:ff9b::a.b.c.d
      if (address.match(LOCAL_USE_NAT64)) return { kind: 'private', what: 'a local-use NAT64 (64:ff9b:1::/48) address' };
      return embedding('a NAT64', ipv4At(g, 6));
    case '6to4': // 2002:AABB:CCDD::
      return embedding('a 6to4', ipv4At(g, 1));
    case 'teredo': {
      // 2001:0:<server>:<flags>:<port>:<client, every bit inverted>
      const server = embedding('a Teredo server', ipv4At(g, 2));
      return server.kind === 'public' ? embedding('a Teredo client', ipv4At(g, 6, 0xffff)) : server;
    }
    case 'unicast':
      if (address.match(IPV4_COMPATIBLE)) return { kind: 'never', what: 'a deprecated IPv4-compatible address' };
      if (address.match(DUMMY_IPV6)) return { kind: 'never', what: 'a reserved address' };
      return PUBLIC;
    default: {
      const known = RANGES[range] ?? RESERVED;
      return { kind: known.kind, what: known.name };
    }
  }
}

function classifyHostname(host: string, relayDomain: string | null): HostClass {
  if (METADATA_HOSTNAMES.has(host)) return { kind: 'never', what: `a cloud metadata service (${host})` };
  if (LOCAL_HOSTNAMES.has(host)) return { kind: 'private', what: `the local machine (${host})` };
  // A single label is resolved through search domains, that is inside the network.
  if (!host.includes('.')) return { kind: 'private', what: `a single-label name, resolved inside the network (${host})` };
  if (relayDomain && (host === relayDomain || host.endsWith(`.${relayDomain}`))) return { kind: 'private', what: `this relay box (${host})` };
  const suffix = INWARD_SUFFIXES.find((s) => host.endsWith(s));
  if (suffix) return { kind: 'private', what: `a ${suffix} name, resolved inside the network (${host})` };
  return PUBLIC;
}
