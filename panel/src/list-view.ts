// What a long list shows: the rows a search, a state and a sort leave, one page of them. Pure, so
// the unit suite checks it without a browser; the list's settings are the URL's query
// (`?q=app&state=down&sort=-port&page=2`), so a link opens a filtered list and Back undoes a step.

export const PAGE_SIZE = 50;

export interface ListSpec<T> {
  /** The row's identity, the key of its table row. */
  key(row: T): string;
  /** The text fields the search box matches, case-insensitively. */
  text(row: T): readonly (string | number | null | undefined)[];
  /** The state filter's choices: name -> whether the row is in that state. */
  states?: Readonly<Record<string, (row: T) => boolean>>;
  /** The sortable columns: name -> the value the column sorts by. */
  sorts?: Readonly<Record<string, (row: T) => string | number>>;
}

export interface ListParams {
  q: string;
  /** a key of `states`, or '' for every row */
  state: string;
  /** a key of `sorts`, or '' for the server's order */
  sort: string;
  desc: boolean;
  /** 1-based */
  page: number;
}

export interface ListPage<T> {
  rows: T[];
  /** rows before the search and the state filter */
  total: number;
  /** rows the search and the state filter leave */
  matched: number;
  page: number;
  pages: number;
  /** 1-based positions of the first and last row shown; 0 and 0 when none */
  from: number;
  to: number;
}

/** The list's settings from a query string; anything unreadable counts as its default. */
export function readListParams(search: string): ListParams {
  const query = new URLSearchParams(search);
  const sort = query.get('sort') ?? '';
  const page = Number(query.get('page'));
  return {
    q: query.get('q') ?? '',
    state: query.get('state') ?? '',
    sort: sort.replace(/^-/, ''),
    desc: sort.startsWith('-'),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** The query string with `change` applied; defaults are left out, other parameters kept. */
export function writeListParams(search: string, change: Partial<ListParams>): string {
  const next = { ...readListParams(search), ...change };
  return writeQuery(search, {
    q: next.q,
    state: next.state,
    sort: next.sort ? `${next.desc ? '-' : ''}${next.sort}` : '',
    page: next.page > 1 ? String(next.page) : '',
  });
}

/**
 * A second list's filter on the same page keeps a parameter of its own beside the first list's
 * (the TCP and UDP tunnels' `streams=tcp|udp` under the HTTP tunnels' `state`): one of `choices`,
 * anything else '' (the whole list).
 */
export function readChoice<C extends string>(search: string, name: string, choices: readonly C[]): C | '' {
  const value = new URLSearchParams(search).get(name);
  return choices.find((choice) => choice === value) ?? '';
}

/** The query string with each of `values` set, or left out when '' (its default); other parameters kept. */
export function writeQuery(search: string, values: Readonly<Record<string, string>>): string {
  const query = new URLSearchParams(search);
  for (const [name, value] of Object.entries(values)) {
    if (value) query.set(name, value);
    else query.delete(name);
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

function compare(a: string | number, b: string | number): number {
  return typeof a === 'number' && typeof b === 'number' ? a - b : collator.compare(String(a), String(b));
}

/** The rows the search and the state leave, in the sort's order (a stable sort: ties keep the server's order). */
export function filterRows<T>(rows: readonly T[], spec: ListSpec<T>, params: Pick<ListParams, 'q' | 'state' | 'sort' | 'desc'>): T[] {
  const needle = params.q.trim().toLowerCase();
  const inState = params.state ? spec.states?.[params.state] : undefined;
  const matching = rows.filter((row) =>
    (!inState || inState(row)) &&
    (!needle || spec.text(row).some((field) => field != null && String(field).toLowerCase().includes(needle))));
  const by = params.sort ? spec.sorts?.[params.sort] : undefined;
  if (!by) return matching;
  const sign = params.desc ? -1 : 1;
  return matching.map((row, i) => ({ row, i, value: by(row) }))
    .sort((a, b) => sign * compare(a.value, b.value) || a.i - b.i)
    .map((x) => x.row);
}

/** One page of `matching`; a page past the end shows the last one (after deletes, say). */
export function pageOf<T>(matching: readonly T[], total: number, page: number, size = PAGE_SIZE): ListPage<T> {
  const pages = Math.max(1, Math.ceil(matching.length / size));
  const shown = Math.min(Math.max(1, page), pages);
  const start = (shown - 1) * size;
  const rows = matching.slice(start, start + size);
  return { rows, total, matched: matching.length, page: shown, pages, from: rows.length ? start + 1 : 0, to: start + rows.length };
}

export function viewList<T>(rows: readonly T[], spec: ListSpec<T>, params: ListParams, size = PAGE_SIZE): ListPage<T> {
  return pageOf(filterRows(rows, spec, params), rows.length, params.page, size);
}
