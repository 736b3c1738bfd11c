// A traffic line's bounds are checked by hand (no zod schema per request). The
// check must keep and drop exactly what the schema it replaced did, and the meter must count and
// drop (relay_traffic_lines_dropped_total) exactly as before on the same lines.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { boundedLine, lineJson, MAX_NAME_LENGTH, MAX_REQUEST_BYTES, MAX_REQUEST_SECONDS, type TrafficLine } from '../../../lib/traffic/line.ts';
import { TrafficMeter } from '../../../lib/traffic/meter.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const s = suite('traffic line bounds: the hand check agrees with the schema it replaced');

/** lib/traffic/line.ts's schema before the bounds were checked by hand, unchanged. */
const Bytes = z.number().int().min(0).max(MAX_REQUEST_BYTES);
const SchemaLine = z.object({
  v: z.string().max(MAX_NAME_LENGTH),
  s: z.number().int().min(100).max(599),
  in: Bytes,
  out: Bytes,
  t: z.number().min(0).max(MAX_REQUEST_SECONDS),
});
const bySchema = (json: unknown): TrafficLine | null => {
  const parsed = SchemaLine.safeParse(json);
  return parsed.success ? parsed.data : null;
};

const V = 'app:a.example.test';
/** Field values as JSON text: what nginx logs, their edges, and what a forger might send. */
const NAMES = [`"${V}"`, '"app:unknown.example.test"', `"${'a'.repeat(MAX_NAME_LENGTH)}"`, `"${'a'.repeat(MAX_NAME_LENGTH + 1)}"`, '""', '123', 'null', '["x"]', '{"v":"x"}', 'true'];
const NUMBERS = ['0', '-0', '1', '99', '100', '200', '404', '502', '599', '600', '1.5', '200.0', '2e2', '1e308', '-1e999', '1e999', '-1', '0.004', '0.000', '86400', '86400.001', '86399.999',
  String(MAX_REQUEST_BYTES), String(MAX_REQUEST_BYTES + 1), String(2 ** 53), String(Number.MAX_SAFE_INTEGER), '"200"', 'null', 'true', '[]', '{}', '"NaN"'];

/** A seeded generator: the same lines every run. */
function random(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

function lines(count: number): string[] {
  const next = random(40);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const fields = [`"v":${pick(NAMES)}`, `"s":${pick(NUMBERS)}`, `"in":${pick(NUMBERS)}`, `"out":${pick(NUMBERS)}`, `"t":${pick(NUMBERS)}`, '"u":"200"'];
    // a field left out now and then, extra ones kept
    const kept = fields.filter(() => next() > 0.05);
    out.push(`<190>Nov 27 05:28:33 relay: {${kept.join(',')}}`);
  }
  // whole lines that are no object, or no JSON
  return [...out, '<190>Nov 27 05:28:33 relay: null', '<190>Nov 27 05:28:33 relay: [1,2]', '<190>x relay: {not json', '', 'no json', `<190>Nov 27 05:28:33 relay: {"v":"${V}","s":200,"in":1,"out":1,"t":0.001}${' '.repeat(4096)}`, `{"__proto__":{"v":"${V}","s":200,"in":1,"out":1,"t":0}}`];
}

s('5,000 generated lines: each kept or dropped as the schema did, with the same fields', () => {
  let kept = 0;
  for (const text of lines(5000)) {
    const json = lineJson(text);
    const expected = bySchema(json);
    assert.equal(boundedLine(json), expected, text.slice(0, 160));
    if (expected) kept++;
  }
  // the generator reaches both sides of every bound
  assert.ok(kept > 10 && kept < 4990, `${kept} kept`);
});

s('the meter counts and drops the same lines as with the schema: counts, totals and dropped by reason', () => {
  const clock = new ManualClock(Date.parse('2026-11-27T10:00:10Z'));
  const meter = new TrafficMeter(clock);
  meter.know(new Set([V]));
  const expected = { requests: 0, bytesIn: 0, bytesOut: 0, invalid: 0, unknownVhost: 0 };
  for (const text of lines(5000)) {
    meter.record(text);
    // the meter's earlier rule: an unknown name first, then the schema
    const json = lineJson(text);
    const name = typeof json === 'object' && json !== null ? (json as { v?: unknown }).v : undefined;
    if (typeof name === 'string' && name !== V) expected.unknownVhost++;
    else {
      const line = bySchema(json);
      if (!line) expected.invalid++;
      else (expected.requests++, (expected.bytesIn += line.in), (expected.bytesOut += line.out));
    }
  }
  const total = meter.totals().get(V);
  assert.equal(
    { requests: total?.requests ?? 0, invalid: meter.dropped().invalid, unknownVhost: meter.dropped().unknownVhost },
    { requests: expected.requests, invalid: expected.invalid, unknownVhost: expected.unknownVhost },
  );
  assert.is(total?.bytesIn, Math.min(expected.bytesIn, Number.MAX_SAFE_INTEGER));
  assert.is(total?.bytesOut, Math.min(expected.bytesOut, Number.MAX_SAFE_INTEGER));
});

s.run();
