// The audit log (GET /api/audit): newest first, filtered by actor and start time. The API pages
// by `limit` only (newest N at or after `since`), so "Show older entries" asks for a longer list,
// up to the API's maximum.
import { useState } from 'preact/hooks';
import { Submit } from '../components/action.tsx';
import { Field, Select } from '../components/field.tsx';
import { ErrorText, Loading, Note, Unavailable } from '../components/notice.tsx';
import { Badge, Table } from '../components/table.tsx';
import { when } from '../format.ts';
import { useResource } from '../resource.ts';

interface Actor { role: 'admin' | 'agent' | 'anonymous' | 'system'; label: string | null; serial: string | null }
interface Entry { time: string; actor: Actor; method?: string; route?: string; event?: string; target: string | null; status?: number; outcome?: string }
interface Filters { actor: string; since: string; pageSize: string }

const PAGE_SIZES = ['25', '100', '250'] as const;
const MAX_LIMIT = 1000;

function auditPath(filters: Filters, limit: number): string {
  const query = new URLSearchParams({ limit: String(limit) });
  if (filters.actor) query.set('actor', filters.actor);
  if (filters.since) query.set('since', filters.since);
  return `/api/audit?${query}`;
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

export function AuditPage() {
  const [filters, setFilters] = useState<Filters>({ actor: '', since: '', pageSize: '100' });
  const [limit, setLimit] = useState(Number(filters.pageSize));
  const log = useResource<{ entries: Entry[] }>(auditPath(filters, limit));
  if (log.unavailable) return <><h1>Audit log</h1><Unavailable feature="Audit log" /></>;
  const entries = log.data?.entries;
  // Fewer entries than asked for: the list reaches the oldest entry the filter matches.
  const complete = entries !== undefined && entries.length < limit;
  return (
    <>
      <h1>Audit log</h1>
      <p>Every change made through the API (whoever made it, whatever the answer), WebSocket connections and the panel's own events, newest first. Request bodies are never logged.</p>
      <FilterForm applied={filters} onApply={(f) => { setFilters(f); setLimit(Number(f.pageSize)); }} />
      <section class="card" aria-labelledby="audit-entries">
        <div class="row spread">
          <h2 id="audit-entries">Entries</h2>
          <button type="button" class="btn" onClick={() => void log.reload()}>Refresh</button>
        </div>
        <ErrorText message={log.error} />
        {!entries ? <Loading /> : (
          <>
            <p class="muted" role="status">{entries.length} {entries.length === 1 ? 'entry' : 'entries'} shown{filters.actor ? ` for ${filters.actor}` : ''}{filters.since ? ` since ${when(filters.since)}` : ''}.</p>
            <Table head={['Time', 'Actor', 'Action', 'Target', 'Result']} empty="No entries match."
              rows={entries.map((e) => [<time dateTime={e.time}>{when(e.time)}</time>, actorText(e.actor), e.event ?? `${e.method ?? ''} ${e.route ?? ''}`.trim(), e.target ?? '—', result(e)])} />
            {!complete && (limit < MAX_LIMIT
              ? <button type="button" class="btn" onClick={() => setLimit((l) => Math.min(MAX_LIMIT, l + Number(filters.pageSize)))}>Show older entries</button>
              : <Note>The newest {MAX_LIMIT} matching entries are shown, the most the API answers at once; an actor filter narrows the list.</Note>)}
          </>
        )}
      </section>
    </>
  );
}
