// The tunnel status answer is built once per change and shared: the same bytes (and the same text
// the live feed pushes) across requests while nothing it shows changed, and a new answer after a
// tunnel toggle, a client session that came, or a traffic line (within the FRESH_MS window).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../../lib/log.ts';
import type { TunnelRecord } from '../../../lib/state/schemas.ts';
import { POLL_MS, TunnelStatus } from '../../../lib/tunnels/status.ts';
import { TrafficMeter } from '../../../lib/traffic/meter.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const FRESH_MS = 1_000;
const a = { id: 't1', subdomain: 'a', fqdn: 'a.example.test', port: 9000, enabled: true } as TunnelRecord;
const b = { id: 't2', subdomain: 'b', fqdn: 'b.example.test', port: 9001, enabled: true } as TunnelRecord;
const line = '<190>Nov 27 05:28:33 relay: {"v":"app:a.example.test","s":200,"in":1,"out":1,"t":0.001,"u":"200"}';

interface Ctx { clock: ManualClock; meter: TrafficMeter; builds: number; tunnels: readonly TunnelRecord[]; connected: Set<number>; status: TunnelStatus }
const s = suite<Ctx>('tunnels: status answer built once per change', {} as Ctx);
s.before.each((ctx) => {
  // a second into a minute: no minute ends in a test unless it says so (that alone moves the traffic windows)
  ctx.clock = new ManualClock(Date.parse('2026-11-27T10:00:01Z'));
  ctx.meter = new TrafficMeter(ctx.clock);
  ctx.meter.know(new Set(['app:a.example.test', 'app:b.example.test']));
  // one traffic() per tunnel per build: counts the builds
  ctx.builds = 0;
  const traffic = ctx.meter.traffic.bind(ctx.meter);
  ctx.meter.traffic = (vhost) => (ctx.builds++, traffic(vhost));
  ctx.tunnels = Object.freeze([a, b]);
  ctx.connected = new Set();
  const server = { connectedPorts: async (ports: readonly number[]) => new Set(ports.filter((p) => ctx.connected.has(p))) };
  ctx.status = new TunnelStatus(() => ctx.tunnels, server, ctx.clock, createLogger({ write: (l) => assert.unreachable(l) }), ctx.meter);
  ctx.status.start();
});
s.after.each((ctx) => ctx.status.close());

const decoded = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as { tunnels: Array<{ subdomain: string; enabled: boolean; connected: boolean; traffic: { lastMinute: { requests: number } } }> };
const settle = () => new Promise((resolve) => setImmediate(resolve));

s('the same bytes, built once, across requests and polls while nothing changes; the feed\'s text and the list are that answer', async (ctx) => {
  const first = await ctx.status.json();
  assert.is(ctx.builds, 2, 'one build: two tunnels');
  for (let i = 0; i < 20; i++) assert.ok((await ctx.status.json()) === first, 'the same bytes within FRESH_MS');
  for (let i = 0; i < 3; i++) {
    ctx.clock.advance(POLL_MS); // a poll, and every answer older than FRESH_MS: checked again
    await settle();
    assert.ok((await ctx.status.json()) === first, 'the same bytes after a check that saw nothing new');
  }
  assert.is(ctx.builds, 2, 'never built again');
  assert.is(await ctx.status.text(), new TextDecoder().decode(first));
  assert.ok((await ctx.status.list()) === (await ctx.status.list()), 'the metrics and alerts share it too');
});

s('a tunnel toggled: a new answer at the next request, without waiting for a check', async (ctx) => {
  const before = await ctx.status.json();
  ctx.tunnels = Object.freeze([{ ...a, enabled: false }, b]);
  const after = await ctx.status.json();
  assert.ok(after !== before);
  assert.equal(decoded(after).tunnels.map((t) => [t.subdomain, t.enabled]), [['a', false], ['b', true]]);
  assert.ok((await ctx.status.json()) === after, 'then the same again');
});

s('a client session that came: a new answer once a check saw it (at most FRESH_MS later), and the feed pushes that same text', async (ctx) => {
  const pushed: string[] = [];
  ctx.status.subscribe((json) => pushed.push(json));
  const before = await ctx.status.json();
  ctx.connected.add(b.port);
  assert.ok((await ctx.status.json()) === before, 'not yet checked: the answer of the last check');
  ctx.clock.advance(FRESH_MS);
  const after = await ctx.status.json();
  assert.ok(after !== before);
  assert.equal(decoded(after).tunnels.map((t) => [t.subdomain, t.connected]), [['a', false], ['b', true]]);
  assert.is(pushed.at(-1), new TextDecoder().decode(after), 'the feed told the same answer');
});

s('a traffic line: a new answer once a check counted it (at most FRESH_MS later), however many lines', async (ctx) => {
  const before = await ctx.status.json();
  for (let i = 0; i < 3; i++) ctx.meter.record(line);
  assert.ok((await ctx.status.json()) === before, 'lines wait for the next check: never a build per request');
  ctx.clock.advance(FRESH_MS);
  const after = await ctx.status.json();
  assert.ok(after !== before);
  assert.is(decoded(after).tunnels[0]!.traffic.lastMinute.requests, 3);
  ctx.clock.advance(FRESH_MS);
  assert.ok((await ctx.status.json()) === after, 'told once');
});

s.run();
