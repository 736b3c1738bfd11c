/** A polyline's `points` of `values` placed by `x` (index) and `y` (value). */
export const polylinePoints = (values: number[], x: (i: number) => number, y: (v: number) => number): string =>
  values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');

/** The runs of values between gaps (null: nothing measured then), each with the index it starts at. */
function runs(values: readonly (number | null)[]): { start: number; values: number[] }[] {
  const out: { start: number; values: number[] }[] = [];
  values.forEach((v, i) => {
    if (v === null) return;
    const last = out.at(-1);
    if (last && last.start + last.values.length === i) last.values.push(v);
    else out.push({ start: i, values: [v] });
  });
  return out;
}

export interface ChartSeries { name: string; values: (number | null)[]; className: string }

/**
 * A small line chart over time, newest sample on the right. Without `max` it draws percentages
 * (0 to 100); with it, values from 0 to `max` (a count or milliseconds), `format` saying them in the
 * legend. A null is a gap (a minute without requests has no latency), a lone value a short dash.
 */
export function LineChart({ series, capacity, label, max = 100, format = (v) => `${v.toFixed(1)}%` }: {
  series: ChartSeries[]; capacity: number; label: string; max?: number; format?: (v: number) => string;
}) {
  const width = 300, height = 100;
  const top = max > 0 ? max : 1;
  const x = (i: number, n: number) => ((capacity - n + i) / (capacity - 1)) * width;
  const y = (v: number) => height - (Math.max(0, Math.min(top, v)) / top) * height;
  // a short dash, not a circle: the drawing is stretched to its box, which would make a circle an ellipse
  const dot = (cx: number, cy: number) => `${Math.max(0, cx - 3).toFixed(1)},${cy.toFixed(1)} ${Math.min(width, cx + 3).toFixed(1)},${cy.toFixed(1)}`;
  const latest = (values: (number | null)[]) => values.findLast((v): v is number => v !== null);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={label}>
        {[0.25, 0.5, 0.75].map((g) => <line key={g} class="grid" x1="0" x2={width} y1={y(g * top)} y2={y(g * top)} />)}
        {series.flatMap((s) => runs(s.values).map((run) => run.values.length === 1
          ? <polyline key={`${s.name}-${run.start}`} class={`${s.className} dot`} fill="none" points={dot(x(run.start, s.values.length), y(run.values[0]!))} />
          : <polyline key={`${s.name}-${run.start}`} class={s.className} fill="none" points={polylinePoints(run.values, (i) => x(run.start + i, s.values.length), y)} />))}
      </svg>
      <figcaption>
        {series.map((s) => {
          const last = latest(s.values);
          return <span key={s.name} class={`legend ${s.className}`}>{s.name} {last === undefined ? '—' : format(last)}</span>;
        })}
      </figcaption>
    </figure>
  );
}
