import { LATENCY_MS, type TrafficTotals } from '../traffic/meter.ts';
import { histogramSeries, type Series } from './tally.ts';

/** The meter's latency buckets in seconds; its last one (Infinity) is the histogram's +Inf. */
const BOUNDS_SECONDS = LATENCY_MS.filter(Number.isFinite).map((ms) => ms / 1000);

/** One latency histogram per tunnel and site vhost, from the meter's counts since the panel started. */
export function vhostLatencySeries(name: string, totals: ReadonlyMap<string, Readonly<TrafficTotals>>): Series[] {
  return [...totals].flatMap(([vhost, t]) => histogramSeries(name, { vhost }, BOUNDS_SECONDS, t.latency, t.latencySeconds));
}
