import type { ComponentChildren } from 'preact';
import { useKeyboardScroll } from './keyboard-scroll.ts';

/** A column heading; a sortable one carries its order (aria-sort) and the button that changes it. */
export type Head = string | { label: string; sort: 'ascending' | 'descending' | 'none'; onSort(): void };

export function HeadCell({ head }: { head: Head }) {
  if (typeof head === 'string') return <th scope="col">{head}</th>;
  return (
    <th scope="col" aria-sort={head.sort}>
      <button type="button" class="sort" onClick={head.onSort}>
        {head.label}<span class="sort-mark" aria-hidden="true">{head.sort === 'ascending' ? ' ▲' : head.sort === 'descending' ? ' ▼' : ' ↕'}</span>
      </button>
    </th>
  );
}

const labelOf = (head: Head) => (typeof head === 'string' ? head : head.label);

/**
 * A scrollable table (narrow screens scroll it sideways); the first cell of each row is its header.
 * `keys` name the rows (their ids): a row keeps its DOM, focus included, when the rows above it
 * change; without them rows are keyed by position.
 */
export function Table({ caption, head, rows, keys, empty }: { caption?: string; head: Head[]; rows: ComponentChildren[][]; keys?: readonly string[]; empty: string }) {
  const box = useKeyboardScroll<HTMLDivElement>(caption ?? `Table of ${head.map(labelOf).join(', ')}`);
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <div class="table-wrap" ref={box}>
      <table>
        {caption && <caption>{caption}</caption>}
        <thead><tr>{head.map((h) => <HeadCell key={labelOf(h)} head={h} />)}</tr></thead>
        <tbody>
          {rows.map((cells, i) => (
            <tr key={keys?.[i] ?? i}>{cells.map((c, j) => (j === 0 ? <th key={j} scope="row">{c}</th> : <td key={j}>{c}</td>))}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Badge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}
