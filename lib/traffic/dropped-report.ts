// Lines the meter did not count, told in the log at most once a minute (a flood of forged lines
// makes one line a minute, not one per datagram); /metrics has the same counts as a counter.
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { TrafficMeter } from './meter.ts';

export const REPORT_EVERY_MS = 60_000;

/** Logs the lines dropped since the last report, when there were any; returns the function that stops it. */
export function reportDroppedLines(meter: Pick<TrafficMeter, 'dropped'>, clock: Clock, log: Pick<Logger, 'warn'>): () => void {
  let reported = { ...meter.dropped() };
  return clock.every(REPORT_EVERY_MS, () => {
    const now = { ...meter.dropped() };
    const invalid = now.invalid - reported.invalid;
    const unknown = now.unknownVhost - reported.unknownVhost;
    reported = now;
    if (invalid + unknown === 0) return;
    log.warn(`traffic log: ${invalid + unknown} lines not counted in the last minute: ${invalid} not a traffic line or out of bounds, ${unknown} for a vhost the panel did not write`);
  });
}
