// GET /metrics in Prometheus text format.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';

const s = suite('metrics');

async function scrape(t: TestApp): Promise<string> {
  const response = await t.request('GET', '/metrics');
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The value of one series, or undefined when it is not exposed. */
function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z0-9_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',');
    if (wanted.every((w) => have.includes(w))) return Number(match[3]);
  }
  return undefined;
}

s('requests are counted by route pattern, method and status, never by the raw URL', async () => {
  const t = await createTestApp();
  try {
    await t.completeOnboarding();
    const id = '7d0c6f5e-1f8a-4c43-9e6b-2a3f0f1d2c3b';
    assert.is((await t.request('DELETE', `/api/tunnels/${id}`)).status, 404);
    assert.is((await t.request('DELETE', `/api/tunnels/${id}`)).status, 404);
    assert.is((await t.request('GET', '/api/tunnels')).status, 200);
    assert.is((await t.request('GET', '/api/no-such-thing')).status, 404);
    const text = await scrape(t);
    assert.is(series(text, 'relay_http_requests_total', { route: '/api/tunnels/:id', method: 'DELETE', status: '404' }), 2);
    assert.is(series(text, 'relay_http_requests_total', { route: '/api/tunnels', method: 'GET', status: '200' }), 1);
    assert.is(series(text, 'relay_http_requests_total', { route: '(unmatched)', status: '404' }), 1);
    assert.is(series(text, 'relay_http_request_duration_seconds_count', { route: '/api/tunnels/:id', method: 'DELETE' }), 2);
    assert.is(series(text, 'relay_http_request_duration_seconds_bucket', { route: '/api/tunnels/:id', method: 'DELETE', le: '+Inf' }), 2);
    assert.not.ok(text.includes(id), 'the raw URL never appears');
    assert.not.ok(text.includes('no-such-thing'));
  } finally {
    await t.close();
  }
});

s('a mounted route is counted under its pattern while mounted', async () => {
  const t = await createTestApp();
  const echo = route({
    method: 'GET',
    path: '/api/extra/echo/:word',
    access: { roles: ADMIN_ONLY, gate: 'open' },
    handle: () => json({ ok: true }),
  });
  try {
    t.app.mount('extra', [echo]);
    assert.is((await t.request('GET', '/api/extra/echo/secret-word')).status, 200);
    t.app.unmount('extra');
    assert.is((await t.request('GET', '/api/extra/echo/secret-word')).status, 404);
    const text = await scrape(t);
    assert.is(series(text, 'relay_http_requests_total', { route: '/api/extra/echo/:word', method: 'GET', status: '200' }), 1);
    assert.is(series(text, 'relay_http_requests_total', { route: '(unmatched)', status: '404' }), 1);
    assert.not.ok(text.includes('secret-word'));
  } finally {
    await t.close();
  }
});

s('box state: tunnels by state, certificate days, service states, ticket counts, store writes, process', async () => {
  const t = await createTestApp();
  try {
    await t.completeOnboarding();
    const created = await t.call('POST', '/api/tunnels', { body: { subdomain: 'web', port: 9000 } });
    assert.is(created.status, 201);
    await t.call('POST', '/api/tunnels', { body: { subdomain: 'off', port: 9001 } });
    await t.call('PATCH', `/api/tunnels/${created.body.tunnel.id}`, { body: { enabled: false } });
    const text = await scrape(t);
    assert.is(series(text, 'relay_tunnels', { state: 'enabled' }), 1);
    assert.is(series(text, 'relay_tunnels', { state: 'disabled' }), 1);
    t.services.traffic.record('<190>Nov 27 05:28:33 relay: {"v":"app:off.example.test","s":502,"in":90,"out":400,"t":0.030,"u":"502"}');
    const counted = await scrape(t);
    assert.is(series(counted, 'relay_vhost_requests_total', { vhost: 'app:off.example.test' }), 1);
    assert.is(series(counted, 'relay_vhost_received_bytes_total', { vhost: 'app:off.example.test' }), 90);
    assert.is(series(counted, 'relay_vhost_sent_bytes_total', { vhost: 'app:off.example.test' }), 400);
    assert.is(series(counted, 'relay_vhost_errors_total', { vhost: 'app:off.example.test' }), 1);
    assert.is(series(counted, 'relay_vhost_latency_seconds_bucket', { vhost: 'app:off.example.test', le: '0.025' }), 0);
    assert.is(series(counted, 'relay_vhost_latency_seconds_bucket', { vhost: 'app:off.example.test', le: '0.05' }), 1);
    assert.is(series(counted, 'relay_vhost_latency_seconds_bucket', { vhost: 'app:off.example.test', le: '+Inf' }), 1);
    assert.is(series(counted, 'relay_vhost_latency_seconds_count', { vhost: 'app:off.example.test' }), 1);
    assert.is(series(counted, 'relay_vhost_latency_seconds_sum', { vhost: 'app:off.example.test' }), 0.03);
    const off = (await t.services.tunnelStatus.list()).find((x) => x.subdomain === 'off')!;
    assert.is(series(text, 'relay_tunnel_connected', { tunnel: 'off' }), off.connected ? 1 : 0, 'as GET /api/tunnels/status says');
    assert.is(series(text, 'relay_tunnel_connected', { tunnel: 'web' }), undefined, 'a disabled tunnel has no series');
    const certs = await t.services.letsEncrypt.list();
    assert.ok(certs.length > 0, 'the sandbox issued tunnel certificates');
    assert.is(series(text, 'relay_certificate_days_to_expiry', { certificate: certs[0]!.name }), certs[0]!.daysLeft);
    assert.is(series(text, 'relay_service_state', { service: 'proxy', state: 'active' }), 1);
    assert.is(series(text, 'relay_service_state', { service: 'proxy', state: 'failed' }), 0);
    assert.is(series(text, 'relay_tickets'), 0);
    assert.is(series(text, 'relay_ticket_instances'), 0);
    assert.is(series(text, 'relay_ticket_sessions', { status: 'active' }), 0);
    assert.ok(series(text, 'relay_store_write_seconds_count', { collection: 'tunnels' })! >= 1);
    assert.ok(series(text, 'relay_store_batch_changes_sum', { collection: 'tunnels' })! >= 3);
    // counted from the first scrape (prom-client starts its process metrics then), so 0 is possible here
    assert.ok(series(text, 'process_cpu_user_seconds_total')! >= 0, 'the process metrics are there');
  } finally {
    await t.close();
  }
});

s('per vhost latency: a histogram since the start with the meter\'s buckets in seconds, cumulative', async () => {
  const t = await createTestApp();
  try {
    await t.completeOnboarding();
    const site = (await t.call('POST', '/api/sites', { body: { name: 'docs', type: 'managed' } })).body.site;
    const vhost = `site:${site.fqdn}`;
    for (const seconds of ['0.004', '0.004', '0.200', '40.000']) {
      t.services.traffic.record(`<190>Nov 27 05:28:33 relay: {"v":"${vhost}","s":200,"in":90,"out":400,"t":${seconds},"u":""}`);
    }
    const text = await scrape(t);
    assert.match(text, '# TYPE relay_vhost_latency_seconds histogram');
    const le = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '+Inf'];
    assert.equal(le.map((bound) => series(text, 'relay_vhost_latency_seconds_bucket', { vhost, le: bound })), [2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 4]);
    assert.is(series(text, 'relay_vhost_latency_seconds_count', { vhost }), 4);
    assert.ok(Math.abs(series(text, 'relay_vhost_latency_seconds_sum', { vhost })! - 40.208) < 1e-9);
  } finally {
    await t.close();
  }
});

s('a deleted tunnel\'s and site\'s vhost series leave /metrics at once; a name nothing serves never enters', async () => {
  const t = await createTestApp();
  try {
    await t.completeOnboarding();
    const kept = (await t.call('POST', '/api/tunnels', { body: { subdomain: 'kept', port: 9000 } })).body.tunnel;
    const gone = (await t.call('POST', '/api/tunnels', { body: { subdomain: 'gone', port: 9001 } })).body.tunnel;
    const site = (await t.call('POST', '/api/sites', { body: { name: 'docs', type: 'managed' } })).body.site;
    const vhosts = [`app:${kept.fqdn}`, `app:${gone.fqdn}`, `site:${site.fqdn}`, 'app:never-served.example.test'];
    for (const vhost of vhosts) t.services.traffic.record(`<190>Nov 27 05:28:33 relay: {"v":"${vhost}","s":200,"in":1,"out":1,"t":0.001,"u":""}`);
    const before = await scrape(t);
    assert.equal(vhosts.map((vhost) => series(before, 'relay_vhost_requests_total', { vhost })), [1, 1, 1, undefined], 'a name nothing serves is not counted');
    assert.is(series(before, 'relay_traffic_lines_dropped_total', { reason: 'unknown_vhost' }), 1);
    assert.is(series(before, 'relay_traffic_lines_dropped_total', { reason: 'invalid' }), 0);
    assert.is((await t.call('DELETE', `/api/tunnels/${gone.id}`)).status, 200);
    assert.is((await t.call('DELETE', `/api/sites/${site.id}`)).status, 200);
    const after = await scrape(t);
    assert.is(series(after, 'relay_vhost_requests_total', { vhost: `app:${kept.fqdn}` }), 1);
    for (const vhost of vhosts.slice(1)) {
      for (const name of ['relay_vhost_requests_total', 'relay_vhost_sent_bytes_total', 'relay_vhost_latency_seconds_count']) assert.is(series(after, name, { vhost }), undefined, `${name} ${vhost}`);
    }
  } finally {
    await t.close();
  }
});

s('admin only: an agent certificate is refused', async () => {
  const t = await createTestApp();
  try {
    await t.addAgent('bot', ['tunnels:read']);
    assert.is((await t.request('GET', '/metrics', { as: { agent: 'bot' } })).status, 403);
    assert.is((await t.request('GET', '/metrics', { as: 'none' })).status, 403);
  } finally {
    await t.close();
  }
});

s('metrics.enabled false: 404 and nothing counted', async () => {
  const t = await createTestApp({ config: { metrics: { enabled: false } } });
  try {
    assert.is(t.services.metrics, null);
    const response = await t.request('GET', '/metrics');
    assert.is(response.status, 404);
    assert.equal(await response.json(), { error: 'Not found' });
  } finally {
    await t.close();
  }
});

s.run();
