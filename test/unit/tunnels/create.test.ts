import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TunnelCreate } from '../../../lib/tunnels/schema.ts';
import { allowedPorts, createTunnel, DOMAIN, tunnelApp, vhostState, type TunnelTestApp } from './helpers.ts';

const s = suite<{ t: TunnelTestApp }>('tunnels: create', {} as { t: TunnelTestApp });
s.before.each(async (ctx) => {
  ctx.t = await tunnelApp();
});
s.after.each(async (ctx) => {
  await ctx.t.close();
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

s('201 {ok, tunnel}: certificate, enabled vhost, port in the authfile, record saved', async ({ t }) => {
  const { status, body } = await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: 8080, description: 'my app' } });
  assert.is(status, 201);
  assert.is(body.ok, true);
  const { tunnel } = body;
  assert.match(tunnel.id, UUID_V4);
  assert.equal({ ...tunnel, id: 'x', createdAt: 'x' }, { id: 'x', subdomain: 'app', fqdn: `app.${DOMAIN}`, port: 8080, description: 'my app', enabled: true, createdAt: 'x' });
  assert.ok(!Number.isNaN(Date.parse(tunnel.createdAt)) && tunnel.createdAt.endsWith('Z'));
  assert.ok(await t.services.system.certs.has(`app.${DOMAIN}`));
  assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: true, enabled: true });
  assert.equal(await allowedPorts(t), [8080]);
  assert.equal(t.services.store.tunnels.value, [tunnel]);
  assert.equal(t.sandbox.eventsOf('tunnelServer.setAllowedPorts').at(-1)?.detail, { ports: [8080] });
});

s('description defaults to the empty string; null is kept', async ({ t }) => {
  assert.is((await createTunnel(t, 'a', 2000)).body.tunnel.description, '');
  assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'b', port: 2001, description: null } })).body.tunnel.description, null);
});

const invalid: Array<[string, unknown, string]> = [
  ['missing subdomain', { port: 8080 }, 'subdomain'],
  ['missing port', { subdomain: 'ok' }, 'port'],
  ['uppercase', { subdomain: 'App', port: 8080 }, 'subdomain'],
  ['leading hyphen', { subdomain: '-app', port: 8080 }, 'subdomain'],
  ['trailing hyphen', { subdomain: 'app-', port: 8080 }, 'subdomain'],
  ['dot', { subdomain: 'a.b', port: 8080 }, 'subdomain'],
  ['underscore', { subdomain: 'a_b', port: 8080 }, 'subdomain'],
  ['empty', { subdomain: '', port: 8080 }, 'subdomain'],
  ['64 chars', { subdomain: 'a'.repeat(64), port: 8080 }, 'subdomain'],
  ['not a string', { subdomain: 5, port: 8080 }, 'subdomain'],
  ['port 1023', { subdomain: 'ok', port: 1023 }, 'port'],
  ['port 65536', { subdomain: 'ok', port: 65536 }, 'port'],
  ['port 8080.5', { subdomain: 'ok', port: 8080.5 }, 'port'],
  ['port as string', { subdomain: 'ok', port: '8080' }, 'port'],
  ['description 201 chars', { subdomain: 'ok', port: 8080, description: 'd'.repeat(201) }, 'description'],
  ['description number', { subdomain: 'ok', port: 8080, description: 5 }, 'description'],
];
s('400 Validation failed with details.issues for each invalid field, nothing created', async ({ t }) => {
  for (const [label, body, path] of invalid) {
    const res = await t.call('POST', '/api/tunnels', { body });
    assert.is(res.status, 400, label);
    assert.is(res.body.error, 'Validation failed', label);
    assert.ok(res.body.details.issues.some((i: { path: string }) => i.path === path), `${label}: ${JSON.stringify(res.body.details)}`);
  }
  assert.is(t.services.store.tunnels.value.length, 0);
  assert.is(t.sandbox.eventsOf('certs.issue').length, 0);
});

s('the limits themselves are accepted: 63 chars, ports 1024 and 65535, 200-char description', async ({ t }) => {
  assert.ok(TunnelCreate.safeParse({ subdomain: 'a'.repeat(63), port: 1024 }).success);
  assert.is((await createTunnel(t, 'a'.repeat(63), 1024)).status, 201);
  assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'x-1', port: 65535, description: 'd'.repeat(200) } })).status, 201);
  assert.is((await createTunnel(t, '7', 1025)).status, 201);
});

s("400 Subdomain '<s>' is reserved for each reserved name", async ({ t }) => {
  for (const name of ['panel', 'auth', 'tunnel', 'www', 'mail', 'ftp', 'api']) {
    const res = await createTunnel(t, name, 8080);
    assert.is(res.status, 400);
    assert.equal(res.body, { error: `Subdomain '${name}' is reserved` });
  }
});

s("400 Subdomain '<s>' is already in use: another tunnel, a managed site's name, a site's FQDN; a custom site's name is no subdomain", async ({ t }) => {
  await createTunnel(t, 'app', 8080);
  assert.equal((await createTunnel(t, 'app', 8081)).body, { error: "Subdomain 'app' is already in use" });
  const site = (name: string, fqdn: string, type: 'managed' | 'custom') => ({
    id: crypto.randomUUID(), name, fqdn, type, spaMode: false, autheliaProtected: false, allowedUsers: [],
    dnsVerified: false, certIssued: false, rootPath: `/srv/${name}`, createdAt: new Date().toISOString(), totalSize: 0,
  });
  await t.services.store.sites.update((sites) => {
    sites.push(site('blog', `blog.${DOMAIN}`, 'managed'), site('shop', `store.${DOMAIN}`, 'custom'), site('docs', 'docs.other.test', 'custom'));
  });
  for (const name of ['blog', 'store']) {
    const res = await createTunnel(t, name, 9000);
    assert.is(res.status, 400, name);
    assert.equal(res.body, { error: `Subdomain '${name}' is already in use` });
  }
  // custom sites named shop and docs: their names are labels, their domains are elsewhere
  assert.is((await createTunnel(t, 'shop', 9001)).status, 201);
  assert.is((await createTunnel(t, 'docs', 9002)).status, 201);
});

s('400 Port <port> is already in use by another tunnel (a disabled tunnel still holds its port)', async ({ t }) => {
  const { body } = await createTunnel(t, 'app', 8080);
  await t.call('PATCH', `/api/tunnels/${body.tunnel.id}`, { body: { enabled: false } });
  const res = await createTunnel(t, 'other', 8080);
  assert.is(res.status, 400);
  assert.equal(res.body, { error: 'Port 8080 is already in use by another tunnel' });
});

s("400 for the box's own loopback ports (panel, tunnel server, portal, proxy): nothing created", async ({ t }) => {
  const { listen, system } = t.services.config.value;
  const own = [listen.port, system.ports.panel, system.ports.tunnelServer, system.ports.authPortal, system.ports.ipPanel];
  for (const [i, port] of own.entries()) {
    const res = await createTunnel(t, `own${i}`, port);
    assert.is(res.status, 400, String(port));
    assert.equal(res.body, { error: `Port ${port} is reserved for the relay's own services` });
  }
  assert.equal(t.services.store.tunnels.value, []);
  assert.equal(await allowedPorts(t), []);
});

s('400 Validation failed when <subdomain>.<domain> would exceed 253 characters', async ({ t }) => {
  await t.services.config.update({ domain: `${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(60)}.example.test` });
  const res = await createTunnel(t, 'a'.repeat(63), 4000);
  assert.is(res.status, 400);
  assert.is(res.body.error, 'Validation failed');
  assert.is(res.body.details.issues[0].path, 'subdomain');
  assert.equal(t.services.store.tunnels.value, []);
});

s('400 Domain and email must be configured before creating tunnels', async ({ t }) => {
  for (const patch of [{ domain: null }, { email: null }]) {
    await t.services.config.update({ domain: DOMAIN, email: 'ops@example.test', ...patch });
    const res = await createTunnel(t, 'app', 8080);
    assert.is(res.status, 400);
    assert.equal(res.body, { error: 'Domain and email must be configured before creating tunnels' });
  }
});

s('503 before onboarding is complete', async ({ t }) => {
  await t.services.config.update({ onboarding: { status: 'DNS_READY' } });
  const res = await createTunnel(t, 'app', 8080);
  assert.is(res.status, 503);
  assert.is(res.body.error, 'Onboarding not complete');
});

// ---- a failure at each step leaves nothing behind ----

async function assertNothingLeft(t: TunnelTestApp, previousPorts: number[] = []) {
  assert.equal(t.services.store.tunnels.value.filter((x) => x.subdomain === 'app'), [], 'no record');
  assert.equal(await vhostState(t, 'app'), { name: `relay-app-app.${DOMAIN}.conf`, written: false, enabled: false }, 'no vhost');
  assert.equal(await allowedPorts(t), previousPorts, 'no authfile entry');
  assert.is(JSON.parse(new TextDecoder().decode(t.services.tunnels.listJson())).tunnels.some((x: { subdomain: string }) => x.subdomain === 'app'), false);
}

async function assertRetrySucceeds(t: TunnelTestApp) {
  const res = await createTunnel(t, 'app', 8080);
  assert.is(res.status, 201, 'the claim was released: a retry succeeds');
}

s('certificate failure: 500 Certificate issuance failed: ..., nothing created', async ({ t }) => {
  await createTunnel(t, 'keep', 7000);
  t.sandbox.failNext('certs.issue', 'acme said no');
  const res = await createTunnel(t, 'app', 8080);
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Failed to create tunnel', details: 'Certificate issuance failed: acme said no' });
  await assertNothingLeft(t, [7000]);
  await assertRetrySucceeds(t);
});

s('nginx test failure: 500 Nginx configuration failed: ..., vhost rolled back, certificate kept', async ({ t }) => {
  t.sandbox.failNext('proxy.test', 'nginx: [emerg] bad');
  const res = await createTunnel(t, 'app', 8080);
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Failed to create tunnel', details: 'Nginx configuration failed: nginx: [emerg] bad' });
  await assertNothingLeft(t);
  assert.ok(await t.services.system.certs.has(`app.${DOMAIN}`), 'the certificate is kept');
  await assertRetrySucceeds(t);
  assert.is(t.sandbox.eventsOf('certs.issue').length, 1, 'the retry reused the certificate');
});

s('tunnel-server failure: 500 Chisel reconfiguration failed: ..., vhost removed, authfile unchanged', async ({ t }) => {
  await createTunnel(t, 'keep', 7000);
  t.sandbox.failNext('tunnelServer.setAllowedPorts', 'disk full');
  const res = await createTunnel(t, 'app', 8080);
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Failed to create tunnel', details: 'Chisel reconfiguration failed: disk full' });
  await assertNothingLeft(t, [7000]);
  assert.equal(t.services.tunnels.desiredPorts(), [7000]);
  await assertRetrySucceeds(t);
  assert.equal(await allowedPorts(t), [7000, 8080]);
});

s('save failure: 500 State persistence failed: ..., vhost and authfile entry removed', async ({ t }) => {
  await createTunnel(t, 'keep', 7000);
  const tunnels = t.services.store.tunnels;
  const original = tunnels.edit.bind(tunnels);
  let failures = 1;
  (tunnels as { edit: typeof tunnels.edit }).edit = (change) =>
    failures-- > 0 ? Promise.reject(new Error('EIO: write failed')) : original(change);
  const res = await createTunnel(t, 'app', 8080);
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Failed to create tunnel', details: 'State persistence failed: EIO: write failed' });
  await assertNothingLeft(t, [7000]);
  await assertRetrySucceeds(t);
});

s('agents: tunnels:write creates; without it 403 Insufficient certificate capability', async ({ t }) => {
  await t.addAgent('writer', ['tunnels:write']);
  await t.addAgent('reader', ['tunnels:read']);
  const denied = await createTunnel(t, 'app', 8080, { as: { agent: 'reader' } });
  assert.is(denied.status, 403);
  assert.equal(denied.body, { error: 'Insufficient certificate capability' });
  assert.is((await createTunnel(t, 'app', 8080, { as: { agent: 'writer' } })).status, 201);
});

s.run();
