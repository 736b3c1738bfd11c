// The certificates certbot stored that no order of the panel accounts for: the renewal timer's
// (certbot renew, run by systemd as the panel's user outside the panel), or a certbot run by hand in
// the panel's configuration directory. Let's Encrypt counts each of them as an order of the account
// and a certificate of its set of names, so the limits count them too.
import { nameSetKey as key, type IssuedVersion } from '../../system/certs/archive.ts';
import type { CountedOrder } from './counts.ts';

/** the file's time and the panel's clock are the same clock, read a moment apart */
const SLACK_MS = 5_000;

interface Claim {
  key: string;
  from: number;
  to: number;
  taken: boolean;
}

/**
 * The versions in the archive not matched by one of the panel's orders, as counted orders. An order
 * the ledger holds as issued was written at its `at`, after certbot stored the file (at most
 * `runMs`, certbot's timeout, before it); one under way was reserved at its `at`, before. Each
 * order accounts for one version of its set of names, the earliest-closing claim first, so a
 * panel issuance is never counted twice and a timer renewal beside it is counted once.
 */
export function outsideOrders(versions: readonly IssuedVersion[], panel: { recorded: readonly CountedOrder[]; underWay: readonly CountedOrder[] }, server: string, runMs: number): CountedOrder[] {
  const claims: Claim[] = [
    ...panel.recorded.filter((o) => o.outcome === 'issued').map((o) => ({ key: key(o.names), from: Date.parse(o.at) - runMs - SLACK_MS, to: Date.parse(o.at) + SLACK_MS, taken: false })),
    ...panel.underWay.map((o) => ({ key: key(o.names), from: Date.parse(o.at) - SLACK_MS, to: Infinity, taken: false })),
  ].sort((a, b) => a.to - b.to);
  const out: CountedOrder[] = [];
  for (const version of [...versions].sort((a, b) => a.at - b.at)) {
    const k = key(version.names);
    const claim = claims.find((c) => !c.taken && c.key === k && c.from <= version.at && version.at <= c.to);
    if (claim) {
      claim.taken = true;
      continue;
    }
    out.push({ at: new Date(version.at).toISOString(), server, names: [...version.names], kind: version.renewal ? 'renewal' : 'new', outcome: 'issued', failedValidations: [] });
  }
  return out;
}
