import * as assert from 'uvu/assert';
import { type Caller } from '../../../lib/testing.ts';
import { allowedPorts, createTunnel, DOMAIN, twoTunnelSuite, vhostState, type TunnelTestApp } from './helpers.ts';

const s = twoTunnelSuite('tunnels: toggle and delete');

const toggle = (t: TunnelTestApp, id: string, enabled: unknown, as?: Caller) =>
  t.call('PATCH', `/api/tunnels/${id}`, { as, body: { enabled } });

async function agentConfig(t: TunnelTestApp) {
  return (await t.call('GET', '/api/tunnels/agent-config')).body;
}

s('disable: vhost unlinked (file kept), port dropped from authfile, agent config and plist; no restart without a live session', async ({ t, id }) => {
  const res = await toggle(t, id, false);
  assert.is(res.status, 200);
  assert.is(res.body.ok, true);
  assert.is(res.body.tunnel.enabled, false);
  assert.is(res.body.tunnel.id, id);
  assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: true, enabled: false });
  assert.equal(await allowedPorts(t), [7000]);
  assert.equal((await agentConfig(t)).tunnels, [{ port: 7000, subdomain: 'keep' }]);
  const plist = (await t.call('GET', '/api/tunnels/mac-plist?format=json')).body.plist as string;
  assert.not.match(plist, '8080');
  assert.is(t.services.store.tunnels.value.find((x) => x.id === id)?.enabled, false);
  assert.is(JSON.parse(new TextDecoder().decode(t.services.tunnels.listJson())).tunnels.find((x: { id: string }) => x.id === id).enabled, false);
  assert.is(t.sandbox.eventsOf('services.control').length, 0, 'no service was restarted');
});

s('enable: all of it restored', async ({ t, id }) => {
  await toggle(t, id, false);
  const res = await toggle(t, id, true);
  assert.is(res.status, 200);
  assert.is(res.body.tunnel.enabled, true);
  assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: true, enabled: true });
  assert.equal(await allowedPorts(t), [7000, 8080]);
  assert.equal((await agentConfig(t)).tunnels, [{ port: 7000, subdomain: 'keep' }, { port: 8080, subdomain: 'app' }]);
  assert.is(t.sandbox.eventsOf('services.control').length, 0);
});

s('setting the current state again is a 200 that touches nothing', async ({ t, id }) => {
  const before = t.sandbox.events.length;
  const res = await toggle(t, id, true);
  assert.is(res.status, 200);
  assert.is(res.body.tunnel.enabled, true);
  assert.is(t.sandbox.events.length, before);
});

s('PATCH 404 Tunnel not found; 400 Validation failed for a missing or non-boolean enabled', async ({ t, id }) => {
  const res = await toggle(t, '00000000-0000-4000-8000-000000000000', false);
  assert.is(res.status, 404);
  assert.equal(res.body, { error: 'Tunnel not found' });
  for (const body of [{}, { enabled: 'false' }, { enabled: 0 }]) {
    const res = await t.call('PATCH', `/api/tunnels/${id}`, { body });
    assert.is(res.status, 400);
    assert.is(res.body.error, 'Validation failed');
    assert.equal(res.body.details.issues.map((i: { path: string }) => i.path), ['enabled']);
  }
});

s('PATCH and DELETE with a malformed id: 400 Validation failed on id, before any lookup', async ({ t, id }) => {
  const before = t.sandbox.events.length;
  const tunnels = t.services.store.tunnels.value;
  const malformed = ['not-a-uuid', id.slice(0, -1), `${id}0`, id.replace(/-/g, ''), '%20', `${id.slice(0, -2)}zz`];
  for (const bad of malformed) {
    for (const res of [await toggle(t, bad, false), await t.call('DELETE', `/api/tunnels/${bad}`)]) {
      assert.is(res.status, 400, bad);
      assert.equal(res.body, { error: 'Validation failed', details: { issues: [{ path: 'id', message: 'must be a UUID' }] } }, bad);
    }
  }
  assert.is(t.sandbox.events.length, before, 'nothing touched on the host');
  assert.is(t.services.store.tunnels.value, tunnels, 'no record changed');
});

s('a UUID of another version, or the nil UUID, is a lookup: 404 Tunnel not found, nothing touched', async ({ t, id }) => {
  const before = t.sandbox.events.length;
  for (const other of ['00000000-0000-0000-0000-000000000000', id.replace(/^(.{14})4/, '$11'), 'ffffffff-ffff-ffff-ffff-ffffffffffff']) {
    for (const res of [await toggle(t, other, false), await t.call('DELETE', `/api/tunnels/${other}`)]) {
      assert.equal([res.status, res.body], [404, { error: 'Tunnel not found' }], other);
    }
  }
  assert.is(t.sandbox.events.length, before);
});

s('an id in upper case names the same tunnel', async ({ t, id }) => {
  const res = await toggle(t, id.toUpperCase(), false);
  assert.is(res.status, 200);
  assert.is(res.body.tunnel.id, id);
});

for (const [point, prefix] of [
  ['proxy.test', 'Nginx configuration failed'],
  ['tunnelServer.setAllowedPorts', 'Chisel reconfiguration failed'],
] as const) {
  s(`PATCH: a failure at ${point} answers 500 Failed to toggle tunnel, ${prefix}: ..., state unchanged`, async ({ t, id }) => {
    t.sandbox.failNext(point, 'boom');
    const res = await toggle(t, id, false);
    assert.is(res.status, 500);
    assert.equal(res.body, { error: 'Failed to toggle tunnel', details: `${prefix}: boom` });
    assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: true, enabled: true });
    assert.equal(await allowedPorts(t), [7000, 8080]);
    assert.is(t.services.store.tunnels.value.find((x) => x.id === id)?.enabled, true);
  });
}

s('PATCH: a failed save undoes the vhost and authfile change (State persistence failed)', async ({ t, id }) => {
  await toggle(t, id, false);
  const tunnels = t.services.store.tunnels;
  const original = tunnels.edit.bind(tunnels);
  (tunnels as { edit: typeof tunnels.edit }).edit = () => Promise.reject(new Error('EROFS'));
  const res = await toggle(t, id, true);
  (tunnels as { edit: typeof tunnels.edit }).edit = original;
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Failed to toggle tunnel', details: 'State persistence failed: EROFS' });
  assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: true, enabled: false });
  assert.equal(await allowedPorts(t), [7000]);
});

s('DELETE: vhost removed, port withdrawn, record removed, certificate kept', async ({ t, id }) => {
  const res = await t.call('DELETE', `/api/tunnels/${id}`);
  assert.is(res.status, 200);
  assert.equal(res.body, { ok: true });
  assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: false, enabled: false });
  assert.equal(await allowedPorts(t), [7000]);
  assert.is(t.services.store.tunnels.value.some((x) => x.id === id), false);
  assert.ok(await t.services.system.certs.has(`app.${DOMAIN}`));
  assert.equal((await t.call('GET', '/api/tunnels')).body.tunnels.map((x: { subdomain: string }) => x.subdomain), ['keep']);
  // subdomain and port are free again; the kept certificate is reused
  const issued = t.sandbox.eventsOf('certs.issue').length;
  assert.is((await createTunnel(t, 'app', 8080)).status, 201);
  assert.is(t.sandbox.eventsOf('certs.issue').length, issued);
});

s('DELETE of a disabled tunnel removes its unlinked vhost file', async ({ t, id }) => {
  await toggle(t, id, false);
  assert.is((await t.call('DELETE', `/api/tunnels/${id}`)).status, 200);
  assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: false, enabled: false });
  assert.equal(await allowedPorts(t), [7000]);
});

s('DELETE 404 Tunnel not found (also the second time)', async ({ t, id }) => {
  assert.is((await t.call('DELETE', `/api/tunnels/${id}`)).status, 200);
  const res = await t.call('DELETE', `/api/tunnels/${id}`);
  assert.is(res.status, 404);
  assert.equal(res.body, { error: 'Tunnel not found' });
});

for (const [point, prefix] of [
  ['proxy.test', 'Nginx configuration failed'],
  ['tunnelServer.setAllowedPorts', 'Chisel reconfiguration failed'],
] as const) {
  s(`DELETE: a failure at ${point} answers 500 Failed to delete tunnel, ${prefix}: ..., tunnel intact`, async ({ t, id }) => {
    t.sandbox.failNext(point, 'boom');
    const res = await t.call('DELETE', `/api/tunnels/${id}`);
    assert.is(res.status, 500);
    assert.equal(res.body, { error: 'Failed to delete tunnel', details: `${prefix}: boom` });
    assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: true, enabled: true });
    assert.equal(await allowedPorts(t), [7000, 8080]);
    assert.ok(t.services.store.tunnels.value.some((x) => x.id === id));
  });
}

s('DELETE: a failed save puts the vhost back and grants the port again (State persistence failed)', async ({ t, id }) => {
  const tunnels = t.services.store.tunnels;
  const original = tunnels.edit.bind(tunnels);
  (tunnels as { edit: typeof tunnels.edit }).edit = () => Promise.reject(new Error('EROFS'));
  const res = await t.call('DELETE', `/api/tunnels/${id}`);
  (tunnels as { edit: typeof tunnels.edit }).edit = original;
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Failed to delete tunnel', details: 'State persistence failed: EROFS' });
  assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: true, enabled: true });
  assert.equal(await allowedPorts(t), [7000, 8080]);
  assert.ok(t.services.store.tunnels.value.some((x) => x.id === id));
  assert.equal(t.services.tunnels.desiredPorts(), [7000, 8080], 'no pending state left behind');
});

s('a connected client (a listener on the tunnel\'s port, as chisel keeps for its session) is cut off when its tunnel is disabled or deleted; without one nothing restarts', async ({ t }) => {
  // chisel's listeners for the two clients' sessions, in the kit's socket table
  const [one, two] = [41001, 41002];
  const releaseOne = t.sockets!.hold('tcp', one);
  t.sockets!.hold('tcp', two);
  const first = (await createTunnel(t, 'live-one', one)).body.tunnel.id;
  const second = (await createTunnel(t, 'live-two', two)).body.tunnel.id;
  assert.is(t.sandbox.eventsOf('tunnelServer.restart').length, 0, 'a grant ends no session');
  assert.is((await toggle(t, first, false)).status, 200);
  assert.equal(t.sandbox.eventsOf('tunnelServer.restart').map((e) => e.detail), [{ endedPorts: [one] }]);
  assert.is((await t.call('DELETE', `/api/tunnels/${second}`)).status, 200);
  assert.equal(t.sandbox.eventsOf('tunnelServer.restart').map((e) => e.detail), [{ endedPorts: [one] }, { endedPorts: [two] }]);
  releaseOne();
  assert.is((await toggle(t, first, true)).status, 200);
  assert.is((await toggle(t, first, false)).status, 200);
  assert.is(t.sandbox.eventsOf('tunnelServer.restart').length, 2, 'no session on the port: no restart');
});

s('agents: tunnels:write toggles and deletes any tunnel; tunnels:read alone gets 403', async ({ t, id }) => {
  await t.addAgent('reader', ['tunnels:read']);
  await t.addAgent('writer', ['tunnels:write']);
  const denied = await toggle(t, id, false, { agent: 'reader' });
  assert.is(denied.status, 403);
  assert.equal(denied.body, { error: 'Insufficient certificate capability' });
  assert.is((await t.call('DELETE', `/api/tunnels/${id}`, { as: { agent: 'reader' } })).status, 403);
  // the admin created this tunnel; an agent with tunnels:write may still manage it
  assert.is((await toggle(t, id, false, { agent: 'writer' })).status, 200);
  assert.is((await t.call('DELETE', `/api/tunnels/${id}`, { as: { agent: 'writer' } })).status, 200);
});

s.run();
