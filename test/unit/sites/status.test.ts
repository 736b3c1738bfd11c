// GET /api/sites/status: each site's traffic from nginx's traffic log lines (sent here as nginx would
// through the meter), newest first, an agent limited to its allowedSites.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { addAgent } from '../../helpers/app.ts';
import { managedSite, siteApp, type SiteTestApp } from './helpers.ts';

const s = suite<{ t: SiteTestApp }>('sites: traffic status', {} as { t: SiteTestApp });
s.before.each(async (ctx) => {
  ctx.t = await siteApp();
});
s.after.each(async (ctx) => {
  await ctx.t.close();
});

const line = (fqdn: string, status: number) => `<190>Nov 27 05:28:33 relay: {"v":"site:${fqdn}","s":${status},"in":80,"out":500,"t":0.002,"u":""}`;

s('requests, bytes and errors per site; an agent sees its allowedSites only; sites:read needed', async ({ t }) => {
  const docs = await managedSite(t, 'docs');
  const blog = await managedSite(t, 'blog');
  for (const status of [200, 200, 404, 503]) t.services.traffic.record(line(docs.fqdn, status));
  const all = await t.call('GET', '/api/sites/status');
  assert.is(all.status, 200);
  assert.equal(all.body.sites.map((x: { name: string }) => x.name), ['blog', 'docs']);
  const docsMinute = all.body.sites.find((x: { name: string }) => x.name === 'docs').traffic.lastMinute;
  assert.equal(docsMinute, { requests: 4, bytesIn: 320, bytesOut: 2000, errors: 1, unreachable: 0, p50Ms: 5, p95Ms: 5 });
  assert.is(all.body.sites.find((x: { name: string }) => x.name === 'blog').traffic.lastHour.requests, 0);
  assert.equal(Object.keys(all.body.sites[0]).sort(), ['fqdn', 'id', 'name', 'traffic']);

  await addAgent(t, 'reader', ['sites:read'], ['blog']);
  await addAgent(t, 'tunnels', ['tunnels:read'], ['docs']);
  const seen = await t.call('GET', '/api/sites/status', { as: { agent: 'reader' } });
  assert.equal(seen.body.sites.map((x: { id: string }) => x.id), [blog.id]);
  assert.is((await t.call('GET', '/api/sites/status', { as: { agent: 'tunnels' } })).status, 403);
});

s.run();
