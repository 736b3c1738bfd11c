/** A polyline's `points` of `values` placed by `x` (index) and `y` (value). */
export const polylinePoints = (values: number[], x: (i: number) => number, y: (v: number) => number): string =>
  values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');

/** A small line chart of percentages (0 to 100) over time; newest sample on the right. */
export function LineChart({ series, capacity, label }: { series: { name: string; values: number[]; className: string }[]; capacity: number; label: string }) {
  const width = 300, height = 100;
  const x = (i: number, n: number) => ((capacity - n + i) / (capacity - 1)) * width;
  const y = (v: number) => height - (Math.max(0, Math.min(100, v)) / 100) * height;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={label}>
        {[25, 50, 75].map((g) => <line key={g} class="grid" x1="0" x2={width} y1={y(g)} y2={y(g)} />)}
        {series.map((s) => (
          <polyline key={s.name} class={s.className} fill="none" points={polylinePoints(s.values, (i) => x(i, s.values.length), y)} />
        ))}
      </svg>
      <figcaption>
        {series.map((s) => <span key={s.name} class={`legend ${s.className}`}>{s.name} {s.values.length ? `${s.values[s.values.length - 1]!.toFixed(1)}%` : '—'}</span>)}
      </figcaption>
    </figure>
  );
}
