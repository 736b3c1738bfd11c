// The audit log (GET /api/audit): newest first, filtered by actor and start time. Each answer says
// where the next page starts (`next`); "Show older entries" asks for it and adds it below.
import { useState } from 'preact/hooks';
import { api, describe, withQuery, type GetAnswer } from '../api.ts';
import { Submit } from '../components/action.tsx';
import { Field, Select } from '../components/field.tsx';
import { ErrorText, Loading, Unavailable } from '../components/notice.tsx';
import { Badge, Table } from '../components/table.tsx';
import { when } from '../format.ts';
import { useResource } from '../resource.ts';

type Entry = AuditPage['entries'][number];
type Actor = Entry['actor'];
interface Filters { actor: string; since: string; pageSize: string }

type AuditPage = GetAnswer<'/api/audit'>;

const PAGE_SIZES = ['25', '100', '250'] as const;

function auditPath(filters: Filters, before?: string) {
  return withQuery('GET', '/api/audit', { limit: filters.pageSize, actor: filters.actor || undefined, since: filters.since || undefined, before });
}

/** The datetime-local value (the browser's time zone) as the ISO time the API compares with. */
function sinceIso(local: string): string | undefined {
  const time = new Date(local).getTime();
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

function actorText(a: Actor): string {
  const who = a.label ?? (a.serial ? `serial ${a.serial}` : '');
  return who ? `${a.role} ${who}` : a.role;
}

function result(e: Entry) {
  if (e.status !== undefined) return <span class={e.status >= 400 ? 'bad' : ''}>{e.status}</span>;
  return e.outcome ? <Badge status={e.outcome} /> : '—';
}

function FilterForm({ applied, onApply }: { applied: Filters; onApply(filters: Filters): void }) {
  const [actor, setActor] = useState(applied.actor);
  const [since, setSince] = useState('');
  const [pageSize, setPageSize] = useState(applied.pageSize);
  const [error, setError] = useState<string>();
  return (
    <form class="card" aria-labelledby="audit-filter" onSubmit={(e) => {
      e.preventDefault();
      const iso = since ? sinceIso(since) : '';
      if (iso === undefined) return setError('Since: enter a date and time');
      setError(undefined);
      onApply({ actor: actor.trim(), since: iso, pageSize });
    }}>
      <h2 id="audit-filter">Filter</h2>
      <ErrorText message={error} />
      <div class="grid">
        <Field label="Actor" value={actor} onInput={setActor} hint="An agent label, a role (admin, agent, anonymous, system) or a certificate serial" />
        <Field label="Since" type="datetime-local" value={since} onInput={setSince} hint="Entries at or after this time (your time zone)" />
        <Select label="Entries per page" value={pageSize} options={PAGE_SIZES} onChange={setPageSize} />
      </div>
      <Submit busy={false}>Apply filter</Submit>
    </form>
  );
}

/** The pages after the first, fetched on demand; forgotten when the first page is fetched again. */
interface Older { after: AuditPage; entries: Entry[]; next: string | null }

export function AuditPage() {
  const [filters, setFilters] = useState<Filters>({ actor: '', since: '', pageSize: '100' });
  const log = useResource(auditPath(filters));
  const [older, setOlder] = useState<Older>();
  const [loading, setLoading] = useState(false);
  const [olderError, setOlderError] = useState<string>();
  if (log.unavailable) return <><h1>Audit log</h1><Unavailable feature="Audit log" /></>;
  const first = log.data;
  const extra = older && older.after === first ? older : undefined;
  const entries = first && [...first.entries, ...(extra?.entries ?? [])];
  const next = extra ? extra.next : first?.next;
  const showOlder = async () => {
    if (!first || !next) return;
    setLoading(true);
    try {
      const page = await api('GET', auditPath(filters, next));
      setOlder({ after: first, entries: [...(extra?.entries ?? []), ...page.entries], next: page.next });
      setOlderError(undefined);
    } catch (error) {
      setOlderError(describe(error));
    } finally {
      setLoading(false);
    }
  };
  return (
    <>
      <h1>Audit log</h1>
      <p>Every change made through the API (whoever made it, whatever the answer), WebSocket connections and the panel's own events, newest first. Request bodies are never logged.</p>
      <FilterForm applied={filters} onApply={setFilters} />
      <section class="card" aria-labelledby="audit-entries">
        <div class="row spread">
          <h2 id="audit-entries">Entries</h2>
          <button type="button" class="btn" onClick={() => void log.reload()}>Refresh</button>
        </div>
        <ErrorText message={log.error} />
        {!entries ? <Loading /> : (
          <>
            <p class="muted" role="status">{entries.length} {entries.length === 1 ? 'entry' : 'entries'} shown{filters.actor ? ` for ${filters.actor}` : ''}{filters.since ? ` since ${when(filters.since)}` : ''}.</p>
            <Table head={['Time', 'Actor', 'Action', 'Target', 'Result']} empty="No entries match. Widen the filters above (another actor, an earlier time): every change made through the panel or the API is logged here."
              rows={entries.map((e) => [<time dateTime={e.time}>{when(e.time)}</time>, actorText(e.actor), e.event ?? `${e.method ?? ''} ${e.route ?? ''}`.trim(), e.target ?? '—', result(e)])} />
            <ErrorText message={olderError} />
            {next && <button type="button" class="btn" disabled={loading} onClick={() => void showOlder()}>Show older entries</button>}
          </>
        )}
      </section>
    </>
  );
}
