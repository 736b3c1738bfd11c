import { isIP } from 'node:net';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * The client's address with exactly one proxy hop trusted: when the peer is the local proxy, the
 * last X-Forwarded-For entry (the one nginx appended); entries before it are client-supplied and
 * ignored. Any other peer is the client itself.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | null): string | undefined {
  if (!peer || !LOOPBACK.test(peer) || !forwardedFor) return peer;
  const last = forwardedFor.split(',').pop()?.trim() ?? '';
  return isIP(last) ? last : peer;
}
