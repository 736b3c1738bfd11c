// Forged vhost names sent to the traffic port. Only the names of the tunnels and
// sites the panel wrote are counted, so forged ones can neither crowd out a real new tunnel nor
// reach /metrics or the traffic API; what was refused is counted in /metrics.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';

const s = suite('traffic: forged vhost names');
const line = (vhost: string) => `<190>Nov 27 05:28:33 relay: {"v":"${vhost}","s":200,"in":90,"out":400,"t":0.002,"u":"200"}`;
const FORGED = 1100;
const forgedName = (i: number) => `app:forged-${i}.example.test`;

async function metricsText(t: TestApp): Promise<string> {
  const response = await t.request('GET', '/metrics');
  assert.is(response.status, 200);
  return response.text();
}

s('1,100 forged names, then a real new tunnel: its 20 requests are all counted; a forged name is seen nowhere', async () => {
  const t = await createTestApp();
  try {
    await t.completeOnboarding();
    for (let i = 0; i < FORGED; i++) t.services.traffic.record(line(forgedName(i)));
    // lines for a name before its tunnel exists are forged too: they must not count once it does
    for (let i = 0; i < 5; i++) t.services.traffic.record(line('app:late.example.test'));
    const created = await t.call('POST', '/api/tunnels', { body: { subdomain: 'late', port: 9000 } });
    assert.is(created.status, 201, JSON.stringify(created.body));
    for (let i = 0; i < 20; i++) t.services.traffic.record(line(`app:${created.body.tunnel.fqdn}`));

    const status = await t.call('GET', '/api/tunnels/status');
    assert.is(status.status, 200);
    const late = status.body.tunnels.find((x: { subdomain: string }) => x.subdomain === 'late');
    assert.is(late.traffic.lastMinute.requests, 20, 'all 20 of 20');
    assert.is(late.traffic.lastHour.bytesOut, 20 * 400);

    const text = await metricsText(t);
    assert.match(text, `relay_vhost_requests_total{vhost="app:late.example.test"} 20`);
    assert.not.match(text, 'forged', 'no forged name in /metrics');
    assert.match(text, `relay_traffic_lines_dropped_total{reason="unknown_vhost"} ${FORGED + 5}`);
    assert.match(text, 'relay_traffic_lines_dropped_total{reason="invalid"} 0');
    for (const path of ['/api/tunnels/status', '/api/sites/status', '/api/tunnels']) {
      const answer = await t.request('GET', path);
      assert.is(answer.status, 200, path);
      assert.not.match(await answer.text(), 'forged', `no forged name in ${path}`);
    }
    assert.equal([...t.services.traffic.totals().keys()], ['app:late.example.test'], 'no forged name holds a place in the meter');
  } finally {
    await t.close();
  }
});

s('the known names follow the records: a site\'s traffic counts from its creation, a deleted tunnel\'s stops at once', async () => {
  const t = await createTestApp();
  try {
    await t.completeOnboarding();
    const tunnel = (await t.call('POST', '/api/tunnels', { body: { subdomain: 'web', port: 9001 } })).body.tunnel;
    const site = (await t.call('POST', '/api/sites', { body: { name: 'docs', type: 'managed' } })).body.site;
    assert.ok(t.services.traffic.record(line(`site:${site.fqdn}`)), 'a new site is known at once');
    assert.ok(t.services.traffic.record(line(`app:${tunnel.fqdn}`)));
    assert.is((await t.call('DELETE', `/api/tunnels/${tunnel.id}`)).status, 200);
    assert.not.ok(t.services.traffic.record(line(`app:${tunnel.fqdn}`)), 'a deleted tunnel is no longer known');
    assert.equal([...t.services.traffic.totals().keys()], [`site:${site.fqdn}`]);
  } finally {
    await t.close();
  }
});

s.run();
