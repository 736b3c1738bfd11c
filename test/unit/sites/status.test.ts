// GET /api/sites/status and WS /api/sites/status/live: each site's traffic from nginx's traffic log
// lines (sent here as nginx would through the meter), newest first, an agent limited to its allowedSites.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { serve } from '../../helpers/http-server.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { openFeed, refusedUpgrade } from '../../helpers/websocket.ts';
import { managedSite, siteApp, type SiteTestApp } from './helpers.ts';

interface Ctx { t: SiteTestApp; clock: ManualClock }
const s = suite<Ctx>('sites: traffic status', {} as Ctx);
s.before.each(async (ctx) => {
  // a second into a minute: no minute ends during a test (that alone moves the windows, and is told)
  const start = Date.now();
  ctx.clock = new ManualClock(start - (start % 60_000) + 1_000);
  ctx.t = await siteApp({ clock: ctx.clock });
});
s.after.each(async (ctx) => {
  await ctx.t.close();
});

const line = (fqdn: string, status: number) => `<190>Nov 27 05:28:33 relay: {"v":"site:${fqdn}","s":${status},"in":80,"out":500,"t":0.002,"u":""}`;
type Answer = { sites: Array<{ id: string; name: string; traffic: { lastHour: { requests: number }; perMinute: number[] } }> };
const requestsByName = (answer: Answer | undefined) => Object.fromEntries((answer?.sites ?? []).map((x) => [x.name, x.traffic.lastHour.requests]));

s('requests, bytes and errors per site; an agent sees its allowedSites only; sites:read needed', async ({ t }) => {
  const docs = await managedSite(t, 'docs');
  const blog = await managedSite(t, 'blog');
  for (const status of [200, 200, 404, 503]) t.services.traffic.record(line(docs.fqdn, status));
  const all = await t.call('GET', '/api/sites/status');
  assert.is(all.status, 200);
  assert.equal(all.body.sites.map((x: { name: string }) => x.name), ['blog', 'docs']);
  const docsTraffic = all.body.sites.find((x: { name: string }) => x.name === 'docs').traffic;
  assert.equal(docsTraffic.lastMinute, { requests: 4, bytesIn: 320, bytesOut: 2000, errors: 1, unreachable: 0, p50Ms: 5, p95Ms: 5 });
  assert.equal(docsTraffic.perMinute, [...new Array(59).fill(0), 4]);
  assert.is(all.body.sites.find((x: { name: string }) => x.name === 'blog').traffic.lastHour.requests, 0);
  assert.equal(Object.keys(all.body.sites[0]).sort(), ['fqdn', 'id', 'name', 'traffic']);

  await t.addAgent('reader', ['sites:read'], ['blog']);
  await t.addAgent('tunnels', ['tunnels:read'], ['docs']);
  const seen = await t.call('GET', '/api/sites/status', { as: { agent: 'reader' } });
  assert.equal(seen.body.sites.map((x: { id: string }) => x.id), [blog.id]);
  assert.is((await t.call('GET', '/api/sites/status', { as: { agent: 'tunnels' } })).status, 403);
});

s('live: the answer at once, then again after a check that saw traffic (never per request); a new site is told', async ({ t, clock }) => {
  const docs = await managedSite(t, 'docs');
  const http = await serve(t.app);
  const feed = await openFeed<Answer>(`ws://127.0.0.1:${http.port}/api/sites/status/live`);
  try {
    await feed.next(1);
    assert.equal(feed.messages[0], (await t.call('GET', '/api/sites/status')).body, 'as GET answers');
    clock.advance(5_000);
    // the feed's check and the traffic record are synchronous: anything they sent is ahead of the ping
    await feed.quiet();
    assert.is(feed.messages.length, 1, 'nothing moved');
    t.services.traffic.record(line(docs.fqdn, 200));
    t.services.traffic.record(line(docs.fqdn, 200));
    await feed.quiet();
    assert.is(feed.messages.length, 1, 'lines wait for the check');
    clock.advance(5_000);
    await feed.next(2);
    assert.equal(requestsByName(feed.messages[1]), { docs: 2 });
    assert.is(feed.messages[1]!.sites[0]!.traffic.perMinute.at(-1), 2);
    clock.advance(5_000);
    await feed.quiet();
    assert.is(feed.messages.length, 2, 'told once');
    await managedSite(t, 'blog');
    clock.advance(5_000);
    await feed.next(3);
    assert.equal(requestsByName(feed.messages[2]), { blog: 0, docs: 2 });
  } finally {
    feed.close();
    await http.close();
  }
});

s('live: an agent is told of its allowedSites only, as they stand, and not of the others\' traffic; it goes with its access', async ({ t, clock }) => {
  const docs = await managedSite(t, 'docs');
  const blog = await managedSite(t, 'blog');
  await t.addAgent('reader', ['sites:read'], ['blog']);
  const http = await serve(t.app);
  const agent = await openFeed<Answer>(`ws://127.0.0.1:${http.port}/api/sites/status/live`, { agent: 'reader', serial: t.agentSerial('reader') });
  const admin = await openFeed<Answer>(`ws://127.0.0.1:${http.port}/api/sites/status/live`);
  try {
    await agent.next(1);
    await admin.next(1);
    assert.equal(agent.messages[0]!.sites.map((x) => x.id), [blog.id]);
    t.services.traffic.record(line(docs.fqdn, 200));
    clock.advance(5_000);
    await admin.next(2);
    await agent.quiet();
    assert.is(agent.messages.length, 1, 'traffic of a site it does not see is not told');
    t.services.traffic.record(line(blog.fqdn, 200));
    clock.advance(5_000);
    await agent.next(2);
    assert.equal(requestsByName(agent.messages[1]), { blog: 1 });

    assert.is((await t.call('PATCH', '/api/certs/agent/reader/allowed-sites', { body: { allowedSites: ['docs'] } })).status, 200);
    clock.advance(5_000);
    await agent.next(3);
    assert.equal(requestsByName(agent.messages[2]), { docs: 1 }, 'the new list, not the handshake\'s');

    assert.is((await t.call('DELETE', '/api/certs/agent/reader')).status, 200);
    t.services.traffic.record(line(docs.fqdn, 200));
    clock.advance(5_000);
    assert.is(await agent.closed, 1008, 'a revoked agent is told nothing more');
    assert.is(agent.messages.length, 3);
    await admin.next(4); // not for the agent's changes: its answer did not change
    assert.equal(requestsByName(admin.messages.at(-1)), { blog: 1, docs: 2 }, 'the others are still told');
  } finally {
    agent.close();
    admin.close();
    await http.close();
  }
});

s('live: agents need sites:read', async ({ t }) => {
  await t.addAgent('tunnels', ['tunnels:read'], ['docs']);
  const http = await serve(t.app);
  try {
    const refused = await refusedUpgrade(`ws://127.0.0.1:${http.port}/api/sites/status/live`, { agent: 'tunnels', serial: t.agentSerial('tunnels') });
    assert.equal(refused, { status: 403, body: { error: 'Insufficient certificate capability' } });
  } finally {
    await http.close();
  }
});

s.run();
