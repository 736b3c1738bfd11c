import type { ComponentChildren } from 'preact';
import { useKeyboardScroll } from './keyboard-scroll.ts';

/** A scrollable table (narrow screens scroll it sideways); the first cell of each row is its header. */
export function Table({ caption, head, rows, empty }: { caption?: string; head: string[]; rows: ComponentChildren[][]; empty: string }) {
  const box = useKeyboardScroll<HTMLDivElement>(caption ?? `Table of ${head.join(', ')}`);
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <div class="table-wrap" ref={box}>
      <table>
        {caption && <caption>{caption}</caption>}
        <thead><tr>{head.map((h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
        <tbody>
          {rows.map((cells, i) => (
            <tr key={i}>{cells.map((c, j) => (j === 0 ? <th key={j} scope="row">{c}</th> : <td key={j}>{c}</td>))}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Badge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}
