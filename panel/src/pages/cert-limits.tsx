import type { GetAnswer } from '../api.ts';
import { ErrorText, Loading, Note } from '../components/notice.tsx';
import { Table } from '../components/table.tsx';
import { when } from '../format.ts';
import { useResource } from '../resource.ts';

type Count = GetAnswer<'/api/certs/limits'>['counts'][number];

const LIMITS: Record<Count['limit'], { title: string; per: string }> = {
  newPerRegisteredDomain: { title: 'New certificates', per: 'registered domain, 7 days' },
  duplicatePerNameSet: { title: 'Same set of names', per: 'name set, 7 days' },
  failedValidationsPerHostname: { title: 'Failed validations', per: 'hostname, 1 hour' },
  ordersPerAccount: { title: 'New orders', per: 'account, 3 hours' },
};
const SOURCES = { letsencrypt: "Let's Encrypt's published limits", 'letsencrypt-staging': "Let's Encrypt staging's published limits", setting: 'the configured limits (certLimits)' } as const;
/** The alert's share: a count at or past it is shown as a warning. */
const NEAR = 0.8;

/** The panel's certificate orders counted against the CA's limits: a create past one is refused before certbot runs. */
export function CertLimits() {
  const limits = useResource('/api/certs/limits');
  if (limits.unavailable) return null;
  const data = limits.data;
  return (
    <section class="card" aria-labelledby="limits-title">
      <h2 id="limits-title">Certificate limits</h2>
      <ErrorText message={limits.error} />
      {!data ? <Loading /> : (
        <>
          <p>Counted against {SOURCES[data.source]} for <code>{data.server}</code>. A tunnel or site whose certificate would pass a limit is refused before any order is placed.</p>
          {data.counts.some((c) => c.max !== null && c.count >= c.max) && <Note kind="warn">A limit is reached: new certificates under it wait until its next slot frees.</Note>}
          <Table head={['Limit', 'Counted per', 'Key', 'Count', 'Next slot frees']} empty="No limits counted."
            rows={data.counts.map((c) => [LIMITS[c.limit].title, LIMITS[c.limit].per, c.key,
              <span class={c.max !== null && c.count >= c.max * NEAR ? 'bad' : ''}>{c.max === null ? `${c.count} (no limit)` : `${c.count} / ${c.max}`}</span>,
              c.nextFreeAt ? when(c.nextFreeAt) : 'now'])} />
        </>
      )}
    </section>
  );
}
