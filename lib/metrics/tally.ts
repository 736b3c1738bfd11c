/** One series as prom-client's registry prints it. */
export interface Series {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * A histogram kept as plain numbers, turned into Prometheus series only when scraped: observing
 * costs a few comparisons and additions, no label lookup or allocation.
 */
export class HistogramTally {
  /** Per bucket (not cumulative); the last slot is +Inf. */
  readonly #buckets: Float64Array;
  #sum = 0;
  #count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.#buckets = new Float64Array(bounds.length + 1);
  }

  get count(): number {
    return this.#count;
  }

  observe(value: number): void {
    let at = 0;
    while (at < this.bounds.length && value > this.bounds[at]!) at++;
    this.#buckets[at]!++;
    this.#sum += value;
    this.#count++;
  }

  /** `<name>_bucket` (cumulative, with `le`), `<name>_sum` and `<name>_count` under these labels. */
  series(name: string, labels: Record<string, string>): Series[] {
    return histogramSeries(name, labels, this.bounds, this.#buckets, this.#sum);
  }
}

/**
 * A histogram's series from counts per bucket (not cumulative; one more than `bounds`, the last
 * being +Inf): `<name>_bucket` (cumulative, with `le`), `<name>_sum` and `<name>_count`.
 */
export function histogramSeries(name: string, labels: Record<string, string>, bounds: readonly number[], perBucket: ArrayLike<number>, sum: number): Series[] {
  const out: Series[] = [];
  let cumulative = 0;
  for (let at = 0; at < perBucket.length; at++) {
    cumulative += perBucket[at]!;
    out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: at < bounds.length ? bounds[at]! : '+Inf' }, value: cumulative });
  }
  out.push({ metricName: `${name}_sum`, labels, value: sum });
  out.push({ metricName: `${name}_count`, labels, value: cumulative });
  return out;
}

// The text exposition of series, as prom-client's registry prints them (same escapes, label order
// and value spelling), without its per-series arrays and the WeakMap entry it makes for each
// series' empty shared labels: a scrape's request histograms are thousands of lines (a route
// pattern, method and status each), and prom-client's printing was most of a scrape's CPU.
const escapeText = (text: string) => (/[\\\n]/.test(text) ? text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n') : text);
const escapeLabelValue = (value: string | number) => (typeof value !== 'string' ? value : /[\\\n"]/.test(value) ? escapeText(value).replace(/"/g, '\\"') : value);

function valueText(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return `${value}`;
}

/** One metric family in Prometheus' text format: HELP, TYPE and a line per series. */
export function familyText(name: string, help: string, type: string, values: readonly Series[]): string {
  const escapedName = escapeText(name);
  let text = `# HELP ${escapedName} ${escapeText(help)}\n# TYPE ${escapedName} ${type}`;
  for (const { metricName = name, labels, value } of values) {
    let labelText = '';
    for (const key in labels) labelText += `${labelText ? ',' : '{'}${key}="${escapeLabelValue(labels[key]!)}"`;
    text += `\n${metricName}${labelText ? `${labelText}}` : ''} ${valueText(value)}`;
  }
  return text;
}
