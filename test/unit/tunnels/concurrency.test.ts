import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deferred } from '../../helpers/deferred.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { allowedPorts, createTunnel, DOMAIN, tunnelApp, vhostState, type TunnelTestApp } from './helpers.ts';

const s = suite<{ t: TunnelTestApp }>('tunnels: concurrency', {} as { t: TunnelTestApp });
s.before.each(async (ctx) => {
  ctx.t = await tunnelApp();
});
s.after.each(async (ctx) => {
  await ctx.t.close();
});

type Ctx = { t: TunnelTestApp };
/** `timed` for tests that take the suite context. */
const timed = (ms: number, body: (ctx: Ctx) => Promise<void>) => (ctx: Ctx) => withTimeout('test', ms, () => body(ctx));

/** `count` turns of the event loop: a delay that orders concurrent work without real time. */
const turns = async (count: number) => {
  for (let i = 0; i < count; i++) await new Promise((r) => setImmediate(r));
};

/**
 * Slows authfile writes down, alternately a lot and a little: unserialized writes would finish out
 * of order and leave a stale port list behind.
 */
function slowTunnelServer(t: TunnelTestApp) {
  const server = t.services.system.tunnelServer;
  const original = server.setAllowedPorts;
  let calls = 0;
  server.setAllowedPorts = async (ports) => {
    await turns(calls++ % 2 === 0 ? 15 : 1);
    return original(ports);
  };
}

/** Store, vhosts and authfile tell the same story. */
async function assertConsistent(t: TunnelTestApp, deleted: string[] = []) {
  const records = t.services.store.tunnels.value;
  for (const r of records) {
    const vhost = await vhostState(t, r.subdomain, r.port);
    assert.equal({ sub: r.subdomain, written: vhost.written, enabled: vhost.enabled }, { sub: r.subdomain, written: true, enabled: r.enabled });
  }
  for (const sub of deleted) assert.is((await vhostState(t, sub)).written, false, `${sub} vhost removed`);
  const enabled = records.filter((r) => r.enabled).map((r) => r.port).sort((a, b) => a - b);
  assert.equal(await allowedPorts(t), enabled, 'authfile = enabled ports');
  assert.equal(t.services.tunnels.desiredPorts(), enabled, 'nothing pending');
}

s('20 concurrent creates with the same port: exactly one 201, the rest 400 Port ... in use', timed(20_000, async ({ t }) => {
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => createTunnel(t, `app${i}`, 8080)));
  assert.is(results.filter((r) => r.status === 201).length, 1);
  const losers = results.filter((r) => r.status !== 201);
  assert.is(losers.length, 19);
  for (const r of losers) assert.equal([r.status, r.body], [400, { error: 'Port 8080 is already in use by another tunnel' }]);
  assert.is(t.services.store.tunnels.value.length, 1);
  assert.equal(await allowedPorts(t), [8080]);
  assert.is(t.sandbox.eventsOf('certs.issue').length, 1, 'losers never reached the certificate step');
  await assertConsistent(t);
}));

s('20 concurrent creates with the same subdomain: exactly one 201, the rest 400 Subdomain ... in use', timed(20_000, async ({ t }) => {
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => createTunnel(t, 'app', 9000 + i)));
  const winners = results.filter((r) => r.status === 201);
  assert.is(winners.length, 1);
  for (const r of results.filter((x) => x.status !== 201)) assert.equal([r.status, r.body], [400, { error: "Subdomain 'app' is already in use" }]);
  assert.equal(await allowedPorts(t), [winners[0]!.body.tunnel.port]);
  await assertConsistent(t);
}));

s('a failed create releases its claim; a concurrent duplicate that lost before the failure stays refused', timed(10_000, async ({ t }) => {
  t.sandbox.failNext('certs.issue', 'acme down');
  const [first, second] = await Promise.all([createTunnel(t, 'app', 8080), createTunnel(t, 'app', 8080)]);
  assert.is(first.status, 500);
  assert.is(second.status, 400);
  assert.is((await createTunnel(t, 'app', 8080)).status, 201);
}));

s('a slow certificate step blocks neither listing, health, agent-config nor other creates', timed(10_000, async ({ t }) => {
  await createTunnel(t, 'fast0', 7000);
  const certs = t.services.system.certs;
  const issue = certs.issue;
  const held = deferred();
  const reached = deferred();
  certs.issue = async (fqdn, email) => {
    if (fqdn === `slow.${DOMAIN}`) {
      reached.resolve();
      await held.promise;
    }
    return issue(fqdn, email);
  };
  const slow = createTunnel(t, 'slow', 8080);
  await reached.promise;
  assert.is((await t.call('GET', '/api/health', { as: 'none' })).status, 200);
  assert.equal((await t.call('GET', '/api/tunnels')).body.tunnels.map((x: { subdomain: string }) => x.subdomain), ['fast0']);
  assert.is((await t.call('GET', '/api/tunnels/agent-config')).status, 200);
  // the slow create already holds its subdomain and port
  assert.equal((await createTunnel(t, 'slow', 8081)).body, { error: "Subdomain 'slow' is already in use" });
  assert.equal((await createTunnel(t, 'other', 8080)).body, { error: 'Port 8080 is already in use by another tunnel' });
  assert.is((await createTunnel(t, 'fast1', 7001)).status, 201);
  held.resolve();
  assert.is((await slow).status, 201);
  assert.equal(await allowedPorts(t), [7000, 7001, 8080]);
  await assertConsistent(t);
}));

s('concurrent toggles of many tunnels lose no update', timed(20_000, async ({ t }) => {
  for (let i = 0; i < 10; i++) await createTunnel(t, `app${i}`, 8000 + i);
  slowTunnelServer(t);
  const ids = t.services.store.tunnels.value.map((x) => x.id);
  const off = await Promise.all(ids.map((id) => t.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: false } })));
  assert.ok(off.every((r) => r.status === 200));
  assert.equal(await allowedPorts(t), []);
  await assertConsistent(t);
  const on = await Promise.all(ids.filter((_, i) => i % 2 === 0).map((id) => t.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: true } })));
  assert.ok(on.every((r) => r.status === 200));
  assert.equal(await allowedPorts(t), [8000, 8002, 8004, 8006, 8008]);
  await assertConsistent(t);
}));

s('repeated concurrent toggles of one tunnel end consistent, in request order', timed(20_000, async ({ t }) => {
  const id = (await createTunnel(t, 'app', 8080)).body.tunnel.id;
  slowTunnelServer(t);
  const wanted = Array.from({ length: 20 }, (_, i) => i % 3 === 0);
  const results = await Promise.all(wanted.map((enabled) => t.services.tunnels.setEnabled(id, enabled)));
  assert.equal(results.map((r) => r.enabled), wanted, 'each answer is the state its request set');
  assert.is(t.services.store.tunnels.value[0]!.enabled, wanted.at(-1));
  await assertConsistent(t);
}));

s('creates, toggles and deletes at once: the authfile is always computed from the current state', timed(30_000, async ({ t }) => {
  for (let i = 0; i < 8; i++) await createTunnel(t, `old${i}`, 7000 + i);
  slowTunnelServer(t);
  const ids = t.services.store.tunnels.value.map((x) => x.id);
  const ops: Promise<unknown>[] = [];
  for (let i = 0; i < 8; i++) {
    ops.push(createTunnel(t, `new${i}`, 9000 + i));
    if (i % 2 === 0) ops.push(t.call('DELETE', `/api/tunnels/${ids[i]}`));
    else ops.push(t.call('PATCH', `/api/tunnels/${ids[i]}`, { body: { enabled: false } }));
    ops.push(t.call('PATCH', `/api/tunnels/${ids[(i + 3) % 8]}`, { body: { enabled: true } }));
  }
  await Promise.all(ops);
  const remaining = t.services.store.tunnels.value;
  assert.is(remaining.length, 12);
  await assertConsistent(t, ['old0', 'old2', 'old4', 'old6']);
}));

s('concurrent deletes of the same tunnel: one 200, the other 404', timed(10_000, async ({ t }) => {
  const id = (await createTunnel(t, 'app', 8080)).body.tunnel.id;
  const [a, b] = await Promise.all([t.call('DELETE', `/api/tunnels/${id}`), t.call('DELETE', `/api/tunnels/${id}`)]);
  assert.equal([a.status, b.status].sort(), [200, 404]);
  await assertConsistent(t, ['app']);
}));

s.run();
