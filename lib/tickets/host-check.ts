// SSRF guard for `transport.direct.host`: other agents will connect to this address, so it must
// not point them (or the box) at loopback, private networks or a cloud metadata service.
// Every spelling is first reduced to one canonical form by the WHATWG URL host parser, which
// already turns decimal, octal, hex and short IPv4 (2130706433, 0177.1, 0x7f.0.0.1), percent
// escapes, full-width digits and upper case into the plain form; then the canonical form is checked.

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

/** Special-use domains that never resolve publicly (RFC 6761, RFC 6762, RFC 8375, ICANN .internal). */
const BLOCKED_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa'];

/** [network, prefix length] */
const BLOCKED_IPV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // zero network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space; also Alibaba's metadata service 100.100.100.200
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, includes 169.254.169.254 (metadata)
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
];

const DOTTED_IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
/** Characters that would make the URL parser read part of the value as something else than the host. */
const NOT_A_HOST = /[\s/\\?#@]/;

export function isPublicHost(raw: string): boolean {
  const host = canonicalHost(raw);
  if (host === null) return false;
  if (host.includes(':')) return isPublicIpv6(host);
  const ipv4 = ipv4ToNumber(host);
  if (ipv4 !== null) return isPublicIpv4(ipv4);
  return isPublicHostname(host);
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

function ipv4ToNumber(host: string): number | null {
  const match = DOTTED_IPV4.exec(host);
  if (!match) return null;
  const octets = match.slice(1).map(Number);
  if (octets.some((octet) => octet > 255)) return null;
  return octets.reduce((value, octet) => value * 256 + octet, 0);
}

const BLOCKED_IPV4_RANGES = BLOCKED_IPV4.map(([network, prefix]) => {
  const size = 2 ** (32 - prefix);
  const start = ipv4ToNumber(network)!;
  return { start, end: start + size };
});

function isPublicIpv4(address: number): boolean {
  return !BLOCKED_IPV4_RANGES.some(({ start, end }) => address >= start && address < end);
}

/** The eight 16-bit groups of a canonical (hex-only, possibly `::`-compressed) IPv6 address. */
function ipv6Groups(host: string): number[] {
  const [head, tail] = host.includes('::') ? host.split('::') : [host, undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  return [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
}

function isPublicIpv6(host: string): boolean {
  const g = ipv6Groups(host);
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  const embedded = (high: number, low: number) => isPublicIpv4(high * 65536 + low);
  if (zeros(0, 6)) return embedded(g[6], g[7]); // ::, ::1 and IPv4-compatible ::a.b.c.d
  if (zeros(0, 5) && g[5] === 0xffff) return embedded(g[6], g[7]); // IPv4-mapped ::ffff:a.b.c.d
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return embedded(g[6], g[7]); // IPv4-translated
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return embedded(g[6], g[7]); // NAT64
  if (g[0] === 0x2002) return embedded(g[1], g[2]); // 6to4
  if ((g[0] & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((g[0] & 0xffc0) === 0xfec0) return false; // old site-local fec0::/10
  if ((g[0] & 0xfe00) === 0xfc00) return false; // unique local fc00::/7 (AWS metadata fd00:ec2::254)
  if ((g[0] & 0xff00) === 0xff00) return false; // multicast
  return true;
}

function isPublicHostname(host: string): boolean {
  // A single label is resolved through search domains, that is inside the network.
  if (!host.includes('.')) return false;
  if (BLOCKED_HOSTNAMES.has(host)) return false;
  return !BLOCKED_SUFFIXES.some((suffix) => host.endsWith(suffix));
}
