// Anything local may send to the traffic port. A line past what nginx can log is
// dropped and counted, and no sum of a real vhost ever becomes non-finite or passes 2^53 - 1.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_REQUEST_BYTES, MAX_REQUEST_SECONDS } from '../../../lib/traffic/line.ts';
import { TrafficMeter } from '../../../lib/traffic/meter.ts';
import { reportDroppedLines, REPORT_EVERY_MS } from '../../../lib/traffic/dropped-report.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const s = suite('traffic meter: hostile lines');
const V = 'app:real.example.test';
const fields = (json: string) => `<190>Nov 27 05:28:33 relay: ${json}`;
const line = ({ v = V, s = 200, bytesIn = 100, bytesOut = 1000, t = '0.004' }: { v?: string; s?: number | string; bytesIn?: number | string; bytesOut?: number | string; t?: number | string } = {}) =>
  fields(`{"v":"${v}","s":${s},"in":${bytesIn},"out":${bytesOut},"t":${t},"u":"200"}`);

function meter(clock = new ManualClock(Date.parse('2026-11-27T10:00:10Z'))): TrafficMeter {
  const m = new TrafficMeter(clock);
  m.know(new Set([V]));
  return m;
}

s('a latency of 1e308 s is dropped: the latency sum stays finite and as the real lines made it', () => {
  const m = meter();
  m.record(line({ t: '0.250' }));
  const counted = [1, 2, 3].map(() => m.record(line({ t: '1e308' })));
  m.record(line({ t: '0.250' }));
  const total = m.totals().get(V)!;
  assert.ok(Number.isFinite(total.latencySeconds), `latency sum ${total.latencySeconds}`);
  assert.equal(counted, [false, false, false], '1e308 is not a traffic line');
  assert.is(total.latencySeconds, 0.5);
  assert.is(total.requests, 2);
  assert.is(m.traffic(V).lastMinute.p95Ms, 250);
  assert.equal(m.dropped(), { invalid: 3, unknownVhost: 0 });
});

s('bytes past what one request can carry are dropped; sums saturate at 2^53 - 1, in the totals and in each window', () => {
  const clock = new ManualClock(Date.parse('2026-11-27T10:00:10Z'));
  const m = meter(clock);
  const counted = [Number.MAX_SAFE_INTEGER, 2 ** 53, MAX_REQUEST_BYTES + 1].flatMap((big) => [m.record(line({ bytesIn: big })), m.record(line({ bytesOut: big }))]);
  const sent = m.traffic(V).lastMinute;
  assert.ok(sent.bytesIn <= Number.MAX_SAFE_INTEGER && sent.bytesOut <= Number.MAX_SAFE_INTEGER, `bytes in the API: ${sent.bytesIn}, ${sent.bytesOut}`);
  assert.equal(counted, [false, false, false, false, false, false], 'more than one request can carry');
  assert.is(m.totals().get(V), undefined, 'nothing counted');
  // the most lines within bounds can do: 2^13 + 1 requests of 1 TiB pass 2^53 in each of two minutes
  const perMinute = 2 ** 13 + 1;
  const big = line({ bytesIn: MAX_REQUEST_BYTES, bytesOut: MAX_REQUEST_BYTES });
  for (let i = 0; i < perMinute; i++) assert.ok(m.record(big));
  clock.advance(60_000);
  for (let i = 0; i < perMinute; i++) assert.ok(m.record(big));
  const total = m.totals().get(V)!;
  assert.is(total.bytesIn, Number.MAX_SAFE_INTEGER);
  assert.is(total.bytesOut, Number.MAX_SAFE_INTEGER);
  assert.is(total.requests, 2 * perMinute, 'every request is still counted');
  // the last minute and the hour both add the two minutes' buckets, each saturated already
  const { lastMinute, lastHour } = m.traffic(V);
  for (const window of [lastMinute, lastHour]) {
    assert.is(window.bytesIn, Number.MAX_SAFE_INTEGER);
    assert.is(window.bytesOut, Number.MAX_SAFE_INTEGER);
  }
});

s('NaN-ish and out-of-bounds fields: each line dropped and counted as invalid, the vhost untouched', () => {
  const m = meter();
  const bad = [
    line({ t: 'NaN' }), line({ t: 'Infinity' }), line({ t: '1e999' }), line({ t: '-1e999' }), line({ t: '"0.004"' }), line({ t: 'null' }),
    line({ t: '-0.001' }), line({ t: MAX_REQUEST_SECONDS + 0.001 }), line({ t: '1e308' }),
    line({ s: 0 }), line({ s: 99 }), line({ s: 600 }), line({ s: '1e308' }), line({ s: 200.5 }), line({ s: '"200"' }),
    line({ bytesIn: -1 }), line({ bytesIn: 1.5 }), line({ bytesIn: '"1"' }), line({ bytesOut: 'null' }), line({ bytesOut: '1e400' }),
    fields(`{"v":"${V}","s":200,"in":1,"out":1}`),
    fields('{"v":123,"s":200,"in":1,"out":1,"t":0}'),
    fields('null'), fields('[1,2]'), fields('"x"'), fields('{not json'), 'no json at all', '',
    line({ t: '0.004' }) + ' '.repeat(4096),
  ];
  for (const text of bad) assert.not.ok(m.record(text), text.slice(0, 120));
  assert.is(m.totals().get(V), undefined, 'none of them counted');
  assert.equal(m.dropped(), { invalid: bad.length, unknownVhost: 0 });
  // the edges of what nginx can log are counted
  for (const good of [line({ s: 100 }), line({ s: 599 }), line({ t: MAX_REQUEST_SECONDS }), line({ t: 0 }), line({ bytesIn: 0, bytesOut: MAX_REQUEST_BYTES })]) {
    assert.ok(m.record(good), good);
  }
  const total = m.totals().get(V)!;
  assert.is(total.requests, 5);
  assert.is(total.errors, 1, '599 is a 5xx');
  assert.ok(Number.isFinite(total.latencySeconds));
});

s('a name the panel wrote no vhost for is counted as such, before its fields are even read', () => {
  const m = meter();
  assert.not.ok(m.record(line({ v: 'app:forged.example.test' })));
  assert.not.ok(m.record(line({ v: 'app:forged.example.test', t: '1e308' })));
  assert.not.ok(m.record(line({ v: 'x'.repeat(1000) })));
  assert.equal(m.dropped(), { invalid: 0, unknownVhost: 3 });
  assert.equal([...m.totals().keys()], []);
});

s('the dropped lines are logged at most once a minute, and only when there were any', () => {
  const clock = new ManualClock(Date.parse('2026-11-27T10:00:10Z'));
  const m = meter(clock);
  const warned: string[] = [];
  const stop = reportDroppedLines(m, clock, { warn: (message) => warned.push(message) });
  for (let i = 0; i < 500; i++) m.record(line({ v: `app:forged-${i}.example.test` }));
  m.record(line({ t: '1e308' }));
  m.record(line());
  assert.equal(warned, [], 'nothing per line');
  clock.advance(REPORT_EVERY_MS);
  assert.equal(warned, ['traffic log: 501 lines not counted in the last minute: 1 not a traffic line or out of bounds, 500 for a vhost the panel did not write']);
  clock.advance(REPORT_EVERY_MS);
  assert.is(warned.length, 1, 'a quiet minute says nothing');
  stop();
});

s.run();
