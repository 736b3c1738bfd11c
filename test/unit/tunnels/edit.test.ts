// PATCH /api/tunnels/:id/settings: port and description, all or nothing; GET /api/tunnels/:id/traffic.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { type Caller } from '../../../lib/testing.ts';
import { sandboxPaths } from '../../../lib/system/sandbox/paths.ts';
import { allowedPorts, createTunnel, DOMAIN, twoTunnelSuite, upstreamPort, vhostState, type TunnelTestApp } from './helpers.ts';

const s = twoTunnelSuite('tunnels: edit port and description');

const edit = (t: TunnelTestApp, id: string, body: unknown, as?: Caller) => t.call('PATCH', `/api/tunnels/${id}/settings`, { as, body });
const vhostText = (t: TunnelTestApp) => readFile(join(sandboxPaths(t.services.store.dataDir).sitesAvailable, `relay-app-app.${DOMAIN}.conf`), 'utf8');
const stored = (t: TunnelTestApp, id: string) => t.services.store.tunnels.get(id);

/** Record, vhost (file, link, upstream), authfile and client config exactly as before the edit. */
async function assertUnchanged(t: TunnelTestApp, id: string) {
  assert.equal({ port: stored(t, id)?.port, description: stored(t, id)?.description }, { port: 8080, description: '' });
  assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: true, enabled: true });
  assert.is(upstreamPort(await vhostText(t)), 8080);
  assert.equal(await allowedPorts(t), [7000, 8080]);
  assert.equal(t.services.tunnels.desiredPorts(), [7000, 8080]);
}

s('port and description: vhost upstream and authfile grant moved, record saved, client config follows, audited', async ({ t, id }) => {
  const res = await edit(t, id, { port: 9300, description: 'the wiki' });
  assert.is(res.status, 200);
  assert.is(res.body.ok, true);
  assert.equal({ ...res.body.tunnel, createdAt: 0 }, { ...stored(t, id), createdAt: 0, port: 9300, description: 'the wiki' });
  assert.equal({ port: stored(t, id)?.port, description: stored(t, id)?.description }, { port: 9300, description: 'the wiki' });
  assert.is(upstreamPort(await vhostText(t)), 9300);
  assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: true, enabled: true });
  assert.equal(await allowedPorts(t), [7000, 9300]);
  const config = (await t.call('GET', '/api/tunnels/agent-config')).body;
  assert.equal(config.tunnels, [{ port: 7000, subdomain: 'keep' }, { port: 9300, subdomain: 'app' }]);
  assert.is((await createTunnel(t, 'other', 8080)).status, 201, 'the old port is free again');
  await t.services.audit.flush();
  const entries = (await t.call('GET', '/api/audit')).body.entries as Array<{ method: string; route: string; target: string; status: number }>;
  assert.ok(entries.some((e) => e.method === 'PATCH' && e.route === '/api/tunnels/:id/settings' && e.target === id && e.status === 200));
});

s('description alone is a save that touches nothing on the host; a disabled tunnel moves without being linked', async ({ t, id }) => {
  const before = t.sandbox.events.length;
  const res = await edit(t, id, { description: 'just words' });
  assert.is(res.status, 200);
  assert.is(res.body.tunnel.description, 'just words');
  assert.is(res.body.tunnel.port, 8080);
  assert.is(t.sandbox.events.length, before);
  await t.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: false } });
  assert.is((await edit(t, id, { port: 9301 })).status, 200);
  assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: true, enabled: false });
  assert.is(upstreamPort(await vhostText(t)), 9301);
  assert.equal(await allowedPorts(t), [7000]);
  assert.is(stored(t, id)?.description, 'just words', 'a port alone keeps the description');
});

s('validation as create: port range and type, description length, an empty change; 404 for no tunnel', async ({ t, id }) => {
  for (const [body, path, message] of [
    [{ port: 80 }, 'port', 'Port must be at least 1024'],
    [{ port: 70000 }, 'port', 'Port must be at most 65535'],
    [{ port: 8080.5 }, 'port', 'Port must be an integer'],
    [{ description: 'x'.repeat(201) }, 'description', 'Description must be at most 200 characters'],
  ] as const) {
    const res = await edit(t, id, body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.is(res.body.error, 'Validation failed');
    assert.equal(res.body.details.issues.map((i: { path: string; message: string }) => [i.path, i.message]), [[path, message]]);
  }
  const empty = await edit(t, id, {});
  assert.is(empty.status, 400);
  assert.is(empty.body.error, 'Validation failed');
  const missing = await edit(t, '00000000-0000-4000-8000-000000000000', { port: 9000 });
  assert.is(missing.status, 404);
  assert.equal(missing.body, { error: 'Tunnel not found' });
  await assertUnchanged(t, id);
});

s("a port another tunnel holds or the relay's own: refused as create refuses it, on the port field, nothing changed", async ({ t, id }) => {
  const before = t.sandbox.events.length;
  const taken = await edit(t, id, { port: 7000, description: 'moved' });
  assert.is(taken.status, 400);
  assert.equal(taken.body, { error: 'Port 7000 is already in use by another tunnel', details: { issues: [{ path: 'port', message: 'Port 7000 is already in use by another tunnel' }] } });
  const create = await createTunnel(t, 'third', 7000);
  assert.is(create.body.error, taken.body.error, 'the same words as a create');
  const own = t.services.config.value.listen.port;
  const reserved = await edit(t, id, { port: own });
  assert.is(reserved.status, 400);
  assert.is(reserved.body.error, `Port ${own} is reserved for the relay's own services`);
  assert.is(t.sandbox.events.length, before);
  await assertUnchanged(t, id);
  assert.is((await edit(t, id, { port: 8080, description: 'same port' })).status, 200, 'its own port is not taken');
});

s('nginx test fails: 500 Nginx configuration failed, vhost put back, grant and record unchanged', async ({ t, id }) => {
  t.sandbox.failNext('proxy.test', 'nginx: [emerg] bad');
  const res = await edit(t, id, { port: 9300, description: 'never' });
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Failed to update tunnel', details: 'Nginx configuration failed: nginx: [emerg] bad' });
  await assertUnchanged(t, id);
});

s('tunnel server fails: 500 Chisel reconfiguration failed, vhost back on the old upstream, record unchanged', async ({ t, id }) => {
  t.sandbox.failNext('tunnelServer.setAllowedPorts', 'disk full');
  const res = await edit(t, id, { port: 9300, description: 'never' });
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Failed to update tunnel', details: 'Chisel reconfiguration failed: disk full' });
  await assertUnchanged(t, id);
  assert.is((await createTunnel(t, 'other', 9300)).status, 201, 'the claim on the new port was released');
});

s('save fails: 500 State persistence failed, vhost and grant put back', async ({ t, id }) => {
  const tunnels = t.services.store.tunnels;
  const original = tunnels.edit.bind(tunnels);
  let failures = 1;
  (tunnels as { edit: typeof tunnels.edit }).edit = (change) => (failures-- > 0 ? Promise.reject(new Error('EIO: write failed')) : original(change));
  const res = await edit(t, id, { port: 9300, description: 'never' });
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Failed to update tunnel', details: 'State persistence failed: EIO: write failed' });
  await assertUnchanged(t, id);
});

s('agents: tunnels:write edits; tunnels:read does not', async ({ t, id }) => {
  await t.addAgent('writer', ['tunnels:write']);
  await t.addAgent('reader', ['tunnels:read']);
  assert.is((await edit(t, id, { description: 'x' }, { agent: 'reader' })).status, 403);
  assert.is((await edit(t, id, { description: 'y' }, { agent: 'writer' })).status, 200);
});

s('traffic: the last hour per minute (requests, bytes, errors, p50/p95) of the tunnel; 404 for no tunnel', async ({ t, id }) => {
  const fqdn = `app.${DOMAIN}`;
  for (const [status, seconds] of [[200, '0.004'], [200, '0.004'], [502, '0.300']] as const) {
    t.services.traffic.record(`<190>Nov 27 05:28:33 relay: {"v":"app:${fqdn}","s":${status},"in":1,"out":1,"t":${seconds},"u":"${status}"}`);
  }
  const res = await t.call('GET', `/api/tunnels/${id}/traffic`);
  assert.is(res.status, 200);
  assert.is(res.body.id, id);
  assert.is(res.body.minutes.length, 60);
  assert.equal({ ...res.body.minutes.at(-1), start: 0 }, { start: 0, requests: 3, bytesIn: 3, bytesOut: 3, errors: 1, p50Ms: 5, p95Ms: 500 });
  assert.is(res.body.minutes.slice(0, -1).reduce((n: number, m: { requests: number }) => n + m.requests, 0), 0);
  assert.is((await t.call('GET', '/api/tunnels/00000000-0000-4000-8000-000000000000/traffic')).status, 404);
});

s('live status viewers are told the new port at the next poll', async ({ t, id }) => {
  const told: string[] = [];
  const stop = t.services.tunnelStatus.subscribe((json) => told.push(json));
  try {
    await t.services.tunnelStatus.refresh();
    const before = told.length;
    await edit(t, id, { port: 9300 });
    await t.services.tunnelStatus.refresh();
    assert.is(told.length, before + 1);
    assert.is(JSON.parse(told.at(-1)!).tunnels.find((x: { id: string }) => x.id === id).port, 9300);
  } finally {
    stop();
  }
});

s.run();
