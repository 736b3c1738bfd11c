import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTunnel, DOMAIN, tunnelApp, type TunnelTestApp } from '../helpers.ts';

// GET /api/tunnels/streams/:id/traffic: a TCP or UDP tunnel's last hour per minute from the meter's
// `tcp:<port>`/`udp:<port>` lines, beside GET /api/tunnels/:id/traffic of the HTTP tunnels. One app
// for the suite: no case changes a record.

interface Ctx { t: TunnelTestApp; tcp: string; udp: string; http: string }
const s = suite<Ctx>('stream tunnels: traffic per minute', {} as Ctx);

const line = (name: string, status: number, bytesIn: number, bytesOut: number, seconds: number) =>
  `<190>Nov 28 12:00:00 relay: {"v":"${name}","s":${status},"in":${bytesIn},"out":${bytesOut},"t":${seconds}}`;

s.before(async (ctx) => {
  ctx.t = await tunnelApp();
  ctx.tcp = (await ctx.t.call('POST', '/api/tunnels', { body: { protocol: 'tcp', publicPort: 42022, port: 22 } })).body.tunnel.id;
  ctx.udp = (await ctx.t.call('POST', '/api/tunnels', { body: { protocol: 'udp', publicPort: 42053, port: 53 } })).body.tunnel.id;
  ctx.http = (await createTunnel(ctx.t, 'app', 8080)).body.tunnel.id;
  const { traffic } = ctx.t.services;
  for (const text of [line('tcp:42022', 200, 1000, 2000, 1.5), line('tcp:42022', 502, 80, 0, 0.004), line('udp:42053', 200, 60, 120, 0.02), line(`app:app.${DOMAIN}`, 200, 1, 1, 0.004)]) {
    assert.ok(traffic.record(text), text);
  }
});
s.after(async (ctx) => {
  await ctx.t.close();
});

const requests = (minutes: Array<{ requests: number }>) => minutes.reduce((n, m) => n + m.requests, 0);

s('sessions, bytes each way, errors and session lengths of this minute; the hour before empty', async ({ t, tcp, udp }) => {
  const res = await t.call('GET', `/api/tunnels/streams/${tcp}/traffic`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.id, tcp);
  assert.is(res.body.minutes.length, 60);
  assert.equal({ ...res.body.minutes.at(-1), start: 0 }, { start: 0, requests: 2, bytesIn: 1080, bytesOut: 2000, errors: 1, p50Ms: 5, p95Ms: 2500 });
  assert.is(requests(res.body.minutes.slice(0, -1)), 0);
  const other = await t.call('GET', `/api/tunnels/streams/${udp}/traffic`);
  assert.equal({ ...other.body.minutes.at(-1), start: 0 }, { start: 0, requests: 1, bytesIn: 60, bytesOut: 120, errors: 0, p50Ms: 25, p95Ms: 25 }, 'each tunnel its own lines');
});

s('each route reaches its own handler: a stream id is no HTTP tunnel, an HTTP id no stream', async ({ t, tcp, http }) => {
  const app = await t.call('GET', `/api/tunnels/${http}/traffic`);
  assert.is(app.status, 200);
  assert.is(requests(app.body.minutes), 1, "the HTTP tunnel's own line");
  for (const path of [`/api/tunnels/streams/${http}/traffic`, `/api/tunnels/${tcp}/traffic`, '/api/tunnels/streams/00000000-0000-4000-8000-000000000000/traffic']) {
    const res = await t.call('GET', path);
    assert.equal([res.status, res.body.error], [404, 'Tunnel not found'], path);
  }
  assert.is((await t.call('GET', '/api/tunnels/streams/nope/traffic')).status, 400);
});

s('access: an agent with tunnels:read; not without it', async ({ t, tcp }) => {
  await t.addAgent('reader', ['tunnels:read']);
  await t.addAgent('sites', ['sites:read']);
  assert.is((await t.call('GET', `/api/tunnels/streams/${tcp}/traffic`, { as: { agent: 'reader' } })).status, 200);
  const refused = await t.call('GET', `/api/tunnels/streams/${tcp}/traffic`, { as: { agent: 'sites' } });
  assert.equal([refused.status, refused.body.error], [403, 'Insufficient certificate capability']);
});

s.run();
