// Where an alert may be sent: a webhook URL's host is checked as written when it is saved,
// and at each delivery the addresses its name resolves to are checked, and those checked addresses
// are the only ones the delivery connects to (lib/alerts/pinned-post.ts), so a name that resolves
// inward later, or between the check and the connection, reaches nothing inward.
import ipaddr from 'ipaddr.js';
import { classifyAddress, classifyHost, type HostClass } from '../host-class.ts';

/** An address a name resolves to, as node:dns answers it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address of a name; the system resolver (getaddrinfo, /etc/hosts included) unless a test gives another. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

export interface TargetPolicy {
  /** `alerts.allowPrivateTargets`: loopback, private networks and inward names may be targets. */
  allowPrivate: boolean;
  /** The relay's domain: the box itself is an inward target. */
  relayDomain: string | null;
}

/** A delivery that the policy does not allow; the delivery log says only this, not where it resolved to. */
export class TargetRefused extends Error {
  constructor() {
    super('refused: private address');
    this.name = 'TargetRefused';
  }
}

// node:dns is loaded with the first delivery: a start sends none (cold start)
export const systemResolve: ResolveHost = async (hostname) => {
  const { lookup } = await import('node:dns/promises');
  return (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** Why a webhook may not have `url` under `policy` (the message of the 400's `url` issue); null when it may. */
export function refusedUrl(url: string, policy: TargetPolicy): string | null {
  return refusal(classifyHost(new URL(url).hostname, policy.relayDomain), policy.allowPrivate);
}

/**
 * The addresses a delivery to `url` may connect to: the literal address, or every address the name
 * resolves to now, each checked. Throws TargetRefused when the host or any of its addresses is not
 * allowed (a name with one inward address is refused whole rather than half-used).
 */
export async function checkedAddresses(url: URL, policy: TargetPolicy, resolve: ResolveHost, signal: AbortSignal): Promise<ResolvedAddress[]> {
  if (refusal(classifyHost(url.hostname, policy.relayDomain), policy.allowPrivate)) throw new TargetRefused();
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.isValid(host)) return [{ address: host, family: host.includes(':') ? 6 : 4 }];
  const addresses = await untilAborted(resolve(host), signal);
  if (addresses.length === 0) throw new Error(`${host} has no address`);
  if (addresses.some((a) => refusal(classifyAddress(a.address), policy.allowPrivate))) throw new TargetRefused();
  return addresses;
}

function refusal(verdict: HostClass, allowPrivate: boolean): string | null {
  if (verdict.kind === 'public') return null;
  if (verdict.kind === 'private') return allowPrivate ? null : `url points at ${verdict.what}, and private targets are off (allowPrivateTargets, PATCH /api/alerts/settings)`;
  return `url points at ${verdict.what}, which a webhook may never target`;
}

/** `work`, or the signal's reason once it aborts (a resolver cannot be stopped, only stopped waiting for). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
