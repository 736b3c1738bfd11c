// An address or a CIDR range as nginx's allow and Authelia's networks read them: IPv4 or IPv6, prefix within the family.
import { isIP } from 'node:net';

/** An address or a network in CIDR form, IPv4 or IPv6: what nginx's `allow` takes (and nothing it would read as a directive). */
export function isCidr(text: string): boolean {
  const [address, prefix, extra] = text.split('/');
  if (extra !== undefined || !address) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}
