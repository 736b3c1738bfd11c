import { polylinePoints } from './chart.tsx';

/** A line of counts scaled to their own peak, oldest on the left; for a table cell beside its numbers. */
export function Sparkline({ values, label }: { values: number[]; label: string }) {
  const width = 120, height = 24;
  const peak = Math.max(1, ...values);
  const x = (i: number) => (values.length > 1 ? (i / (values.length - 1)) * width : 0);
  // a pixel inside the top and bottom edges, so the stroke at the peak and at zero is not clipped
  const y = (v: number) => height - 1 - (v / peak) * (height - 2);
  return (
    <svg class="sparkline" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={label}>
      <polyline fill="none" points={polylinePoints(values, x, y)} />
    </svg>
  );
}
