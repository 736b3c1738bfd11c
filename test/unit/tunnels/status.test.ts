// GET /api/tunnels/status in the sandbox, where a listener on a tunnel's port on 127.0.0.1 plays a
// connected client (as chisel listens there for a live session): here one in the kit's socket table.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { callerHeaders } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { openFeed, refusedUpgrade } from '../../helpers/websocket.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { createTunnel, tunnelApp, type TunnelTestApp } from './helpers.ts';

/** a client's session: the port chisel listens on for it, and how it goes */
interface Session { port: number; close(): void }
interface Ctx { t: TunnelTestApp; clock: ManualClock; session: Session; free: number }
const s = suite<Ctx>('tunnels: live status', {} as Ctx);


s.before.each(async (ctx) => {
  ctx.clock = new ManualClock(Date.now());
  ctx.t = await tunnelApp({ clock: ctx.clock });
  ctx.session = { port: 41001, close: ctx.t.sockets!.hold('tcp', 41001) };
  ctx.free = 41002;
});
s.after.each(async (ctx) => {
  ctx.session.close();
  await ctx.t.close();
});

const status = async (t: TunnelTestApp, as?: { agent: string }) => t.call('GET', '/api/tunnels/status', as ? { as } : {});
const byName = (body: { tunnels: Array<Record<string, unknown>> }) => Object.fromEntries(body.tunnels.map((x) => [x.subdomain, x]));

s('connected while the tunnel\'s port listens, with since and last seen; not connected otherwise', async ({ t, clock, session, free }) => {
  await createTunnel(t, 'live', session.port);
  await createTunnel(t, 'idle', free);
  const first = await status(t);
  assert.is(first.status, 200, JSON.stringify(first.body));
  const started = new Date(clock.now()).toISOString();
  const none = { requests: 0, bytesIn: 0, bytesOut: 0, errors: 0, unreachable: 0, p50Ms: null, p95Ms: null };
  const quiet = { lastMinute: none, lastHour: none, perMinute: new Array(60).fill(0) };
  assert.equal(byName(first.body).live, { id: byName(first.body).live!.id, subdomain: 'live', port: session.port, enabled: true, connected: true, connectedSince: started, lastSeen: started, traffic: quiet });
  assert.equal({ ...byName(first.body).idle, id: 0 }, { id: 0, subdomain: 'idle', port: free, enabled: true, connected: false, connectedSince: null, lastSeen: null, traffic: quiet });

  // the poll keeps lastSeen moving while connectedSince stays
  clock.advance(12_000);
  const later = byName((await status(t)).body).live!;
  assert.is(later.connectedSince, started);
  assert.ok(String(later.lastSeen) > started, String(later.lastSeen));

  // the client goes away: not connected, last seen kept
  session.close();
  clock.advance(1_000);
  const gone = byName((await status(t)).body).live!;
  assert.equal([gone.connected, gone.connectedSince, gone.lastSeen], [false, null, later.lastSeen]);
});

s('a tunnel made just after an answer is looked at, not reported offline from the older answer', async ({ t, session }) => {
  await status(t);
  await createTunnel(t, 'live', session.port);
  assert.is(byName((await status(t)).body).live!.connected, true);
});

s('a disabled tunnel is not connected, even with a listener on its port', async ({ t, session }) => {
  const { id } = (await createTunnel(t, 'live', session.port)).body.tunnel;
  await t.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: false } });
  const live = byName((await status(t)).body).live!;
  assert.equal([live.enabled, live.connected], [false, false]);
});

s('GET answers from the answer built once: repeated requests build nothing while nothing changed', async ({ t, free }) => {
  await createTunnel(t, 'idle', free);
  const first = await t.request('GET', '/api/tunnels/status');
  const text = await first.text();
  // the build reads each tunnel's traffic: count the reads
  const meter = t.services.traffic;
  const traffic = meter.traffic.bind(meter);
  let reads = 0;
  meter.traffic = (vhost) => (reads++, traffic(vhost));
  try {
    for (let i = 0; i < 5; i++) assert.is(await (await t.request('GET', '/api/tunnels/status')).text(), text);
    assert.is(reads, 0);
  } finally {
    meter.traffic = traffic;
  }
});

s('agents need tunnels:read', async ({ t }) => {
  await t.addAgent('reader', ['tunnels:read']);
  await t.addAgent('sites', ['sites:read']);
  assert.is((await status(t, { agent: 'reader' })).status, 200);
  const denied = await status(t, { agent: 'sites' });
  assert.is(denied.status, 403);
  assert.equal(denied.body, { error: 'Insufficient certificate capability' });
});

s('live: the status at once, then again when a client connects or goes (each poll), not for lastSeen alone', async ({ t, clock, session, free }) => {
  const http = await serve(t.app);
  const ws = new WebSocket(`ws://127.0.0.1:${http.port}/api/tunnels/status/live`, { headers: callerHeaders('admin') });
  const opened = new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const messages: Array<{ tunnels: Array<{ subdomain: string; connected: boolean }> }> = [];
  let waiting: (() => void) | null = null;
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)));
    waiting?.();
  });
  const next = (count: number) => (messages.length >= count ? Promise.resolve() : new Promise<void>((resolve) => (waiting = () => messages.length >= count && resolve())));
  try {
    await opened;
    await next(1);
    assert.equal(messages.at(-1)!.tunnels, [], 'no tunnel yet');
    await createTunnel(t, 'idle', free);
    clock.advance(5_000);
    await next(2);
    assert.equal(messages.at(-1)!.tunnels.map((x) => [x.subdomain, x.connected]), [['idle', false]]);
    const { port } = (await createTunnel(t, 'live', session.port)).body.tunnel;
    assert.is(port, session.port);
    clock.advance(5_000);
    await next(3);
    assert.equal(messages.at(-1)!.tunnels.map((x) => [x.subdomain, x.connected]).sort(), [['idle', false], ['live', true]]);
    const told = messages.length;
    clock.advance(5_000); // lastSeen moves; nothing else
    // that poll's check done first: the kit's socket table answers within the tick, so the check
    // saw the client, and a tick while it is still in flight shares it rather than asking again
    await t.services.tunnelStatus.refresh();
    session.close();
    clock.advance(5_000);
    await next(told + 1);
    assert.is(messages.length, told + 1, 'one message: the client that went');
    assert.equal(messages.at(-1)!.tunnels.map((x) => [x.subdomain, x.connected]).sort(), [['idle', false], ['live', false]]);
  } finally {
    ws.close();
    await t.close();
    await http.close();
  }
});

s('live: told again after a poll that saw traffic through a tunnel, once however many lines, and not without', async ({ t, clock, free }) => {
  const { fqdn } = (await createTunnel(t, 'idle', free)).body.tunnel;
  // a second into a minute: no minute ends during the test (that alone moves the windows, and is told)
  clock.advance(60_000 - (clock.now() % 60_000) + 1_000);
  const http = await serve(t.app);
  const feed = await openFeed<{ tunnels: Array<{ traffic: { lastMinute: { requests: number }; perMinute: number[] } }> }>(`ws://127.0.0.1:${http.port}/api/tunnels/status/live`);
  const settled = () => new Promise((resolve) => setTimeout(resolve, 50));
  // a poll the clock started may still await the tunnel server's answer (a loaded machine): a poll
  // joined while one runs shares it, and it read the meter before the lines below
  const polled = async () => {
    await t.services.tunnelStatus.refresh();
    await settled();
  };
  try {
    await feed.next(1);
    clock.advance(5_000);
    await polled();
    assert.is(feed.messages.length, 1, 'nothing moved');
    for (let i = 0; i < 3; i++) t.services.traffic.record(`<190>Nov 27 05:28:33 relay: {"v":"app:${fqdn}","s":200,"in":1,"out":1,"t":0.001,"u":"200"}`);
    await settled();
    assert.is(feed.messages.length, 1, 'never per request: lines wait for the poll');
    clock.advance(5_000);
    await feed.next(2);
    assert.is(feed.messages[1]!.tunnels[0]!.traffic.lastMinute.requests, 3);
    assert.is(feed.messages[1]!.tunnels[0]!.traffic.perMinute.at(-1), 3);
    clock.advance(5_000);
    await polled();
    assert.is(feed.messages.length, 2, 'told once');
  } finally {
    feed.close();
    await t.close();
    await http.close();
  }
});

s('live: an agent revoked since its handshake is told nothing more and its feed closed (1008) within a poll, though no tunnel changed', async ({ t, clock, free }) => {
  await t.addAgent('watcher', ['tunnels:read']);
  await createTunnel(t, 'one', free);
  const http = await serve(t.app);
  const feed = await openFeed<{ tunnels: unknown[] }>(`ws://127.0.0.1:${http.port}/api/tunnels/status/live`, { agent: 'watcher', serial: t.agentSerial('watcher') });
  try {
    await feed.next(1);
    assert.is((await t.call('DELETE', '/api/certs/agent/watcher')).status, 200);
    // no tunnel changes: the feed's own access check closes it
    clock.advance(5_000);
    const notClosed = new Promise<string>((resolve) => setTimeout(() => resolve('still open after 3 s'), 3_000));
    assert.is(await Promise.race([feed.closed, notClosed]), 1008);
    assert.is(feed.messages.length, 1, 'nothing more was told');
  } finally {
    feed.close();
    await t.close();
    await http.close();
  }
});

s('live: agents need tunnels:read', async ({ t }) => {
  await t.addAgent('sites', ['sites:read']);
  const http = await serve(t.app);
  try {
    const refused = await refusedUpgrade(`ws://127.0.0.1:${http.port}/api/tunnels/status/live`, { agent: 'sites', serial: t.agentSerial('sites') });
    assert.equal(refused, { status: 403, body: { error: 'Insufficient certificate capability' } });
  } finally {
    await t.close();
    await http.close();
  }
});

s.run();
