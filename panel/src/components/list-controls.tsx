// A long list's search box, state filter, sortable headings and pages, kept in the URL's query
// (panel/src/list-view.ts): the list is filtered with a memo and only the current page is rendered,
// so a keystroke repaints 50 rows whatever the list's length.
import { useId, useMemo } from 'preact/hooks';
import { filterRows, pageOf, readListParams, writeListParams, type ListPage, type ListParams, type ListSpec } from '../list-view.ts';
import { currentPath, currentQuery, navigate } from '../router.ts';
import { Select } from './field.tsx';
import type { Head } from './table.tsx';

export interface ListView<T> extends ListPage<T> {
  params: ListParams;
  /** the shown rows' keys, in order */
  keys: string[];
  /** Changes the list's settings in the URL; a new search, state or sort starts again at page 1. */
  set(change: Partial<ListParams>, options?: { replace?: boolean }): void;
  /** The heading of a column sorted by `spec.sorts[sort]`. */
  sortHead(label: string, sort: string): Head;
}

/** `spec` must keep its identity between renders (a module constant or a memo): the filter reruns when it changes. */
export function useListView<T>(rows: readonly T[] | undefined, spec: ListSpec<T>): ListView<T> {
  const search = currentQuery.value;
  const params = useMemo(() => readListParams(search), [search]);
  const matching = useMemo(() => filterRows(rows ?? [], spec, params), [rows, spec, params.q, params.state, params.sort, params.desc]);
  const page = pageOf(matching, rows?.length ?? 0, params.page);
  const set = (change: Partial<ListParams>, options?: { replace?: boolean }) =>
    navigate(currentPath.value + writeListParams(currentQuery.value, { page: 1, ...change }), options);
  return {
    ...page,
    params,
    keys: page.rows.map(spec.key),
    set,
    sortHead(label, sort) {
      const on = params.sort === sort;
      return { label, sort: on ? (params.desc ? 'descending' : 'ascending') : 'none', onSort: () => set({ sort, desc: on && !params.desc }) };
    },
  };
}

export interface StateChoice { value: string; label: string }

/** The search box and the state filter; `noun` is the list's name in the plural ("tunnels"). */
export function ListControls<T>({ view, noun, states }: { view: ListView<T>; noun: string; states?: readonly StateChoice[] }) {
  const id = useId();
  return (
    <div class="list-controls">
      <div class="field">
        <label for={id}>Search {noun}</label>
        {/* each keystroke rewrites the history entry: Back leaves the search instead of stepping through it */}
        <input id={id} type="search" value={view.params.q} autoComplete="off"
          onInput={(e) => view.set({ q: (e.target as HTMLInputElement).value }, { replace: true })} />
      </div>
      {states && <Select label="State" value={view.params.state} options={[{ value: '', label: 'All' }, ...states]} onChange={(state) => view.set({ state })} />}
    </div>
  );
}

/** Previous and Next, and which rows are shown ("51–100 of 120"). */
export function Pager<T>({ view, noun }: { view: ListView<T>; noun: string }) {
  if (view.total === 0) return null;
  return (
    <nav class="pager" aria-label={`Pages of ${noun}`}>
      <button type="button" class="btn" disabled={view.page <= 1} onClick={() => view.set({ page: view.page - 1 })}>Previous</button>
      <span aria-live="polite">
        {view.matched === 0 ? `0 of ${view.total}` : `${view.from}–${view.to} of ${view.matched}`}{view.matched !== view.total && view.matched !== 0 ? ` (${view.total} in all)` : ''}
      </span>
      <button type="button" class="btn" disabled={view.page >= view.pages} onClick={() => view.set({ page: view.page + 1 })}>Next</button>
    </nav>
  );
}
