// A tunnel's last hour per minute (an HTTP tunnel's or a TCP/UDP one's page): line charts over the
// 60 minutes, then the minutes that had traffic as a table for who cannot read a drawing. Each page
// says its own charts and columns; the totals in the labels count the minutes with requests.
import { Fragment, type ComponentChildren } from 'preact';
import { clockTime, TRAFFIC_MINUTES as MINUTES, type TrafficMinute } from '../traffic.ts';
import { LineChart } from './chart.tsx';
import { Table } from './table.tsx';

type Value = (m: TrafficMinute) => number;

export interface MinuteChart {
  title: string;
  /** The chart's accessible name: `sum` adds a value over the minutes with requests, `peak` is the chart's top. */
  label(sum: (pick: Value) => number, peak: number): string;
  format(v: number): string;
  /** The lines; the chart's top is the largest of their values (at least 1). */
  series: { name: string; className: string; value(m: TrafficMinute): number | null }[];
}

export interface MinuteTable {
  summary: string;
  caption: string;
  empty: string;
  /** After the "Minute" column, a head and a cell of each minute. */
  columns: { head: string; cell(m: TrafficMinute): ComponentChildren }[];
}

export function MinuteCharts({ minutes, charts, table }: { minutes: TrafficMinute[]; charts: MinuteChart[]; table: MinuteTable }) {
  const busy = minutes.filter((m) => m.requests > 0);
  const sum = (pick: Value) => busy.reduce((n, m) => n + pick(m), 0);
  return (
    <>
      {charts.map((chart) => {
        const series = chart.series.map((s) => ({ name: s.name, className: s.className, values: minutes.map(s.value) }));
        const peak = Math.max(1, ...series.flatMap((s) => s.values.map((v) => v ?? 0)));
        return (
          <Fragment key={chart.title}>
            <h3>{chart.title}</h3>
            <LineChart label={chart.label(sum, peak)} capacity={MINUTES} max={peak} format={chart.format} series={series} />
          </Fragment>
        );
      })}
      <details>
        <summary>{table.summary}</summary>
        <Table caption={table.caption} head={['Minute', ...table.columns.map((c) => c.head)]} empty={table.empty}
          rows={busy.map((m) => [clockTime(m.start), ...table.columns.map((c) => c.cell(m))])} />
      </details>
    </>
  );
}
