// The traffic meter on the lines nginx's traffic log sends (syslog header, then the vhost's JSON).
import { createSocket } from 'node:dgram';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseTrafficLine } from '../../../lib/traffic/line.ts';
import { LATENCY_MS, TrafficMeter } from '../../../lib/traffic/meter.ts';
import { receiveTraffic } from '../../../lib/traffic/receiver.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { unusedPort } from '../../helpers/loopback-listener.ts';

const s = suite('traffic meter');
/** A meter that knows the names these tests send (the runtime tells it the records' names). */
function meterOf(clock: ManualClock, ...names: string[]): TrafficMeter {
  const meter = new TrafficMeter(clock);
  meter.know(new Set(names.length ? names : ['app:a.example.test', 'site:b.example.test']));
  return meter;
}
const line = (v: string, status: number, ms: number, bytesIn = 100, bytesOut = 1000) =>
  `<190>Nov 27 05:28:33 relay: {"v":"${v}","s":${status},"in":${bytesIn},"out":${bytesOut},"t":${(ms / 1000).toFixed(3)},"u":"${status}"}`;

s('a line as nginx sends it is parsed; anything else is not a traffic line', () => {
  assert.equal(parseTrafficLine(line('app:a.example.test', 200, 12)), { v: 'app:a.example.test', s: 200, in: 100, out: 1000, t: 0.012 });
  for (const bad of ['', 'hello', '<190>x relay: {not json', '{"v":"x","s":"200","in":1,"out":1,"t":0}', '{"v":"x","s":200,"in":-1,"out":1,"t":0}']) {
    assert.is(parseTrafficLine(bad), null, bad);
  }
});

s('per vhost: requests, bytes, 5xx and 502, latency percentiles; the last minute and the last hour', () => {
  const clock = new ManualClock(Date.parse('2026-11-27T10:00:10Z'));
  const meter = meterOf(clock);
  for (let i = 0; i < 90; i++) meter.record(line('app:a.example.test', 200, 8));
  for (let i = 0; i < 8; i++) meter.record(line('app:a.example.test', 200, 400));
  meter.record(line('app:a.example.test', 502, 3));
  meter.record(line('app:a.example.test', 500, 3));
  meter.record(line('site:b.example.test', 404, 1, 50, 300));
  const a = meter.traffic('app:a.example.test');
  assert.equal(a.lastMinute, { requests: 100, bytesIn: 10_000, bytesOut: 100_000, errors: 2, unreachable: 1, p50Ms: 10, p95Ms: 500 });
  assert.equal(a.lastHour, a.lastMinute);
  assert.equal(meter.traffic('site:b.example.test').lastMinute, { requests: 1, bytesIn: 50, bytesOut: 300, errors: 0, unreachable: 0, p50Ms: 5, p95Ms: 5 });
  assert.equal(meter.traffic('app:none.example.test').lastHour, { requests: 0, bytesIn: 0, bytesOut: 0, errors: 0, unreachable: 0, p50Ms: null, p95Ms: null });

  clock.advance(2 * 60_000);
  meter.record(line('app:a.example.test', 200, 30));
  assert.is(meter.traffic('app:a.example.test').lastMinute.requests, 1, 'older minutes are out of the last minute');
  assert.is(meter.traffic('app:a.example.test').lastHour.requests, 101);
  clock.advance(60 * 60_000);
  assert.is(meter.traffic('app:a.example.test').lastHour.requests, 0, 'an hour later nothing is left');
});

s('series: per minute for the last hour, requests, bytes, 5xx errors and that minute\'s own p50/p95, oldest first', () => {
  const clock = new ManualClock(Date.parse('2026-11-27T10:00:10Z'));
  const meter = meterOf(clock);
  const a = 'app:a.example.test';
  for (let i = 0; i < 19; i++) meter.record(line(a, 200, 8));
  meter.record(line(a, 503, 900));
  clock.advance(2 * 60_000);
  for (let i = 0; i < 4; i++) meter.record(line(a, 500, 2000));
  const series = meter.series(a);
  assert.is(series.length, 60);
  assert.equal(series.at(-1), { start: '2026-11-27T10:02:00.000Z', requests: 4, bytesIn: 400, bytesOut: 4000, errors: 4, p50Ms: 2500, p95Ms: 2500 });
  assert.equal(series.at(-2), { start: '2026-11-27T10:01:00.000Z', requests: 0, bytesIn: 0, bytesOut: 0, errors: 0, p50Ms: null, p95Ms: null });
  assert.equal(series.at(-3), { start: '2026-11-27T10:00:00.000Z', requests: 20, bytesIn: 2000, bytesOut: 20000, errors: 1, p50Ms: 10, p95Ms: 10 });
  assert.is(series[0]!.start, '2026-11-27T09:03:00.000Z');
  assert.is(meter.series('app:none.example.test').reduce((n, m) => n + m.requests, 0), 0);
  clock.advance(58 * 60_000);
  assert.equal(meter.series(a)[0], { start: '2026-11-27T10:01:00.000Z', requests: 0, bytesIn: 0, bytesOut: 0, errors: 0, p50Ms: null, p95Ms: null }, 'the first minute slid out');
  assert.is(meter.series(a)[1]!.requests, 4);
});

s('requests per minute for the last hour, oldest first, the current minute last', () => {
  const clock = new ManualClock(Date.parse('2026-11-27T10:00:10Z'));
  const meter = meterOf(clock);
  const a = 'app:a.example.test';
  for (let i = 0; i < 3; i++) meter.record(line(a, 200, 1));
  clock.advance(60_000);
  meter.record(line(a, 200, 1));
  clock.advance(2 * 60_000);
  for (let i = 0; i < 5; i++) meter.record(line(a, 200, 1));
  const perMinute = meter.traffic(a).perMinute;
  assert.is(perMinute.length, 60);
  assert.equal(perMinute.slice(-4), [3, 1, 0, 5]);
  assert.is(perMinute.slice(0, -4).reduce((x, y) => x + y, 0), 0);
  assert.is(meter.traffic(a).lastHour.requests, 9, 'the series adds up to the hour');
  clock.advance(57 * 60_000);
  assert.equal(meter.traffic(a).perMinute.slice(0, 4), [1, 0, 5, 0], 'the minute of the first lines left the hour');
  assert.equal(meter.traffic('app:none.example.test').perMinute, new Array(60).fill(0));
});

s('the version moves with each line and with each minute while the hour holds one, and not otherwise', () => {
  const clock = new ManualClock(Date.parse('2026-11-27T10:00:10Z'));
  const meter = meterOf(clock);
  const quiet = meter.version();
  clock.advance(5 * 60_000);
  assert.is(meter.version(), quiet, 'no line yet: nothing to tell');
  meter.record(line('app:a.example.test', 200, 1));
  const counted = meter.version();
  assert.is.not(counted, quiet);
  clock.advance(10_000);
  assert.is(meter.version(), counted, 'same minute, no line');
  assert.not.ok(meter.record('not a traffic line'));
  assert.is(meter.version(), counted, 'a refused line changes nothing');
  let before = counted;
  for (let minute = 1; minute <= 60; minute++) {
    clock.advance(60_000);
    assert.is.not(meter.version(), before, `minute ${minute}: the windows moved`);
    before = meter.version();
  }
  assert.is(meter.traffic('app:a.example.test').lastHour.requests, 0);
  clock.advance(30 * 60_000);
  assert.is(meter.version(), before, 'the hour is empty: minutes no longer change anything');
});

s('know: the buckets and totals of every name no longer known are forgotten, and its lines no longer counted', () => {
  const clock = new ManualClock(Date.parse('2026-11-27T10:00:10Z'));
  const meter = meterOf(clock);
  meter.record(line('app:a.example.test', 200, 1));
  meter.record(line('site:b.example.test', 200, 1));
  meter.know(new Set(['app:a.example.test', 'app:c.example.test']));
  assert.equal([...meter.totals().keys()], ['app:a.example.test']);
  assert.is(meter.traffic('site:b.example.test').lastHour.requests, 0);
  assert.is(meter.traffic('app:a.example.test').lastHour.requests, 1);
  assert.not.ok(meter.record(line('site:b.example.test', 200, 1)), 'a forgotten name is not counted again');
  assert.ok(meter.record(line('app:c.example.test', 200, 1)), 'a newly known name is');
});

s('totals keep a latency histogram per vhost since the start: one count per line in its bucket, and the seconds', () => {
  const clock = new ManualClock(Date.parse('2026-11-27T10:00:10Z'));
  const meter = meterOf(clock);
  for (const ms of [3, 5, 7, 400, 45_000]) meter.record(line('app:a.example.test', 200, ms));
  clock.advance(2 * 60 * 60_000);
  const total = meter.totals().get('app:a.example.test')!;
  const expected = LATENCY_MS.map(() => 0);
  expected[0] = 2; // 3 and 5 ms: up to 5
  expected[1] = 1; // 7
  expected[LATENCY_MS.indexOf(500)] = 1; // 400
  expected[LATENCY_MS.length - 1] = 1; // 45 s: slower than the last bound
  assert.equal(total.latency, expected, 'kept after the hour is gone');
  assert.ok(Math.abs(total.latencySeconds - 45.415) < 1e-9, String(total.latencySeconds));
  assert.is(total.requests, 5);
});

s('memory is bounded by the known names: a name the panel wrote no vhost for is not counted', () => {
  const meter = meterOf(new ManualClock(), 'app:a.example.test');
  assert.ok(meter.record(line('app:a.example.test', 200, 1)));
  assert.not.ok(meter.record(line('app:d.example.test', 200, 1)));
  assert.is(meter.traffic('app:d.example.test').lastMinute.requests, 0);
  assert.equal([...meter.totals().keys()], ['app:a.example.test']);
  assert.not.ok(new TrafficMeter(new ManualClock()).record(line('app:a.example.test', 200, 1)), 'none before the first `know`');
});

s('the receiver counts datagrams sent to its loopback port', async () => {
  const meter = meterOf(new ManualClock());
  const port = await unusedPort();
  const close = await receiveTraffic(port, meter, (e) => assert.unreachable(e.message));
  const client = createSocket('udp4');
  try {
    for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => client.send(line('app:a.example.test', 200, 1), port, '127.0.0.1', () => resolve()));
    for (let i = 0; i < 50 && meter.traffic('app:a.example.test').lastMinute.requests < 3; i++) await new Promise((r) => setTimeout(r, 10));
    assert.is(meter.traffic('app:a.example.test').lastMinute.requests, 3);
  } finally {
    client.close();
    await close();
  }
});

s.run();
