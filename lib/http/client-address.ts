const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** An IPv4 or IPv6 address in text form (what node:net's isIP accepts), without node:net. */
function isIpAddress(text: string): boolean {
  if (IPV4.test(text)) return true;
  if (!text.includes(':') || !/^[0-9a-fA-F:.]+$/.test(text)) return false;
  try {
    // The URL parser implements the IPv6 grammar (and an embedded IPv4 tail); anything else throws.
    new URL(`http://[${text}]/`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The client's address with exactly one proxy hop trusted: when the peer is the local proxy, the
 * last X-Forwarded-For entry (the one nginx appended); entries before it are client-supplied and
 * ignored. Any other peer is the client itself.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | null): string | undefined {
  if (!peer || !LOOPBACK.test(peer) || !forwardedFor) return peer;
  const last = forwardedFor.split(',').pop()?.trim() ?? '';
  return isIpAddress(last) ? last : peer;
}
