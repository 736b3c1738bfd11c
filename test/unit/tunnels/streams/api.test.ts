import { createServer, type Server } from 'node:net';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { allowedPorts, createTunnel, tunnelApp, type TunnelTestApp } from '../helpers.ts';
import { reconcileAtStart, restoreHost } from '../../../../lib/host-state/reconcile.ts';
import { servedTrafficNames } from '../../../../lib/traffic/retention.ts';

const s = suite<{ t: TunnelTestApp }>('stream tunnels: create, toggle, edit, delete through the API', {} as { t: TunnelTestApp });
s.before.each(async (ctx) => {
  ctx.t = await tunnelApp();
});
s.after.each(async (ctx) => {
  await ctx.t.close();
});

const tcp = (publicPort: number, extra: Record<string, unknown> = {}) => ({ protocol: 'tcp', publicPort, port: 22, ...extra });
const files = (t: TunnelTestApp) => t.services.system.streams.list();

s('TCP: 201 with the record, its stream server written, its tunnel listener granted; no certificate', async ({ t }) => {
  const res = await t.call('POST', '/api/tunnels', { body: tcp(42022, { allow: ['203.0.113.0/24'], description: 'ssh' }) });
  assert.is(res.status, 201, JSON.stringify(res.body));
  const { tunnel } = res.body;
  assert.equal({ ...tunnel, id: 'x', createdAt: 'x', tunnelPort: 0 }, {
    id: 'x', protocol: 'tcp', publicPort: 42022, port: 22, tunnelPort: 0, allow: ['203.0.113.0/24'], proxyProtocol: false, description: 'ssh', enabled: true, createdAt: 'x',
  });
  // the listener's port is outside the public range, so it never takes a port the world could be given
  assert.ok(tunnel.tunnelPort > 60000, String(tunnel.tunnelPort));
  assert.equal(await files(t), ['relay-stream-tcp-42022.conf']);
  assert.equal(await allowedPorts(t), [tunnel.tunnelPort]);
  assert.equal(t.sandbox.eventsOf('certs.issue'), []);
  assert.equal(t.services.store.tunnels.value, [], 'the HTTP tunnels stay as they were');
  const list = await t.call('GET', '/api/tunnels/streams?protocol=tcp');
  assert.equal(list.body.streams, [tunnel]);
  assert.equal((await t.call('GET', '/api/tunnels/streams?protocol=udp')).body.streams, []);
});

s('without protocol the body is an HTTP tunnel, validated as before', async ({ t }) => {
  const res = await t.call('POST', '/api/tunnels', { body: { publicPort: 42022, port: 22 } });
  assert.is(res.status, 400);
  assert.is(res.body.error, 'Validation failed');
  assert.ok(res.body.details.issues.some((i: { path: string }) => i.path === 'subdomain'), JSON.stringify(res.body.details));
  assert.is((await createTunnel(t, 'app', 8080)).status, 201);
  assert.is((await t.call('POST', '/api/tunnels', { body: { protocol: 'http', subdomain: 'two', port: 8081 } })).status, 201);
});

s('400 for a PROXY protocol on UDP, a bad source and a port out of bounds', async ({ t }) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ protocol: 'udp', publicPort: 42053, port: 53, proxyProtocol: true }, 'proxyProtocol'],
    [tcp(42022, { allow: ['10.0.0.0/33'] }), 'allow.0'],
    [tcp(42022, { allow: ['all; include /etc/passwd'] }), 'allow.0'],
    [tcp(70000), 'publicPort'],
    [tcp(42022, { port: 0 }), 'port'],
  ];
  for (const [body, path] of cases) {
    const res = await t.call('POST', '/api/tunnels', { body });
    assert.is(res.status, 400, JSON.stringify(body));
    assert.ok(res.body.details.issues.some((i: { path: string }) => i.path === path), JSON.stringify(res.body.details));
  }
  assert.equal(await files(t), []);
  const bad = await t.call('POST', '/api/tunnels', { body: tcp(42022, { allow: ['203.0.113.0/24', 'example.com'] }) });
  const words = await t.call('POST', '/api/tunnels', { body: tcp(42022, { port: 'ssh' }) });
  assert.equal(words.body.details.issues, [{ path: 'port', message: 'Port must be a number from 1 to 65535' }], 'a port typed as a word');
  assert.equal(bad.body.details.issues, [{ path: 'allow.1', message: "'example.com' is not an IPv4 or IPv6 address, nor a network in CIDR form (203.0.113.0/24)" }], 'the source named');
});

async function refusal(t: TunnelTestApp, body: Record<string, unknown>): Promise<string> {
  const res = await t.call('POST', '/api/tunnels', { body });
  assert.is(res.status, 400, JSON.stringify(res.body));
  return res.body.error as string;
}

s('a public port the box uses is refused with what holds it', async ({ t }) => {
  assert.is(await refusal(t, tcp(443)), 'Public port 443 is outside the range for TCP and UDP tunnels (10000-60000)');
  assert.is((await createTunnel(t, 'app', 18080)).status, 201);
  assert.is(await refusal(t, tcp(18080)), 'Public port 18080 is already in use by the HTTP tunnel app');
  const first = (await t.call('POST', '/api/tunnels', { body: tcp(42022) })).body.tunnel;
  assert.is(await refusal(t, tcp(42022)), 'Public port 42022 is already in use by the TCP tunnel on public port 42022');
  const onField = await t.call('POST', '/api/tunnels', { body: tcp(42022) });
  assert.equal(onField.body.details.issues, [{ path: 'publicPort', message: 'Public port 42022 is already in use by the TCP tunnel on public port 42022' }], 'on its field, for the form');
  // UDP beside TCP on one number, as DNS has it
  assert.is((await t.call('POST', '/api/tunnels', { body: { protocol: 'udp', publicPort: 42022, port: 53 } })).status, 201);
  // an HTTP tunnel may not take a stream tunnel's ports either
  for (const port of [42022, first.tunnelPort]) {
    const res = await createTunnel(t, 'late', port);
    assert.is(res.status, 400);
    assert.is(res.body.error, `Port ${port} is already in use by another tunnel`);
  }
});

// through this machine's own socket tables: real sockets, as a program on the box would hold them
s('a public port a program listens on right now is refused, TCP and UDP', async () => {
  const t = await tunnelApp({ sockets: 'kernel' });
  const server: Server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const udp = createSocket('udp4');
  udp.bind(0, '127.0.0.1');
  await once(udp, 'listening');
  try {
    const port = (server.address() as { port: number }).port;
    const udpPort = udp.address().port;
    await t.services.config.update({ streams: { publicPorts: { from: 1024, to: 65535 } } });
    assert.is(await refusal(t, tcp(port)), `Public port ${port} is already in use: a program listens on 127.0.0.1:${port} (TCP)`);
    assert.is(await refusal(t, { protocol: 'udp', publicPort: udpPort, port: 53 }), `Public port ${udpPort} is already in use: a program listens on 127.0.0.1:${udpPort} (UDP)`);
  } finally {
    server.close();
    udp.close();
    await t.close();
  }
});

s("a public port the kit's socket table holds is refused the same way", async ({ t }) => {
  await t.services.config.update({ streams: { publicPorts: { from: 1024, to: 65535 } } });
  const release = [t.sockets!.hold('tcp', 43100, '0.0.0.0'), t.sockets!.hold('udp', 43101)];
  assert.is(await refusal(t, tcp(43100)), 'Public port 43100 is already in use: a program listens on 0.0.0.0:43100 (TCP)');
  assert.is(await refusal(t, { protocol: 'udp', publicPort: 43101, port: 53 }), 'Public port 43101 is already in use: a program listens on 127.0.0.1:43101 (UDP)');
  for (const r of release) r();
  assert.is((await t.call('POST', '/api/tunnels', { body: tcp(43100) })).status, 201);
});

s('disable removes the server and the grant; enable puts both back; delete removes all', async ({ t }) => {
  const { id, tunnelPort } = (await t.call('POST', '/api/tunnels', { body: { protocol: 'udp', publicPort: 42053, port: 53 } })).body.tunnel;
  const off = await t.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: false } });
  assert.is(off.status, 200);
  assert.is(off.body.tunnel.enabled, false);
  assert.equal(await files(t), []);
  assert.equal(await allowedPorts(t), []);
  await t.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: true } });
  assert.equal(await files(t), ['relay-stream-udp-42053.conf']);
  assert.equal(await allowedPorts(t), [tunnelPort]);
  assert.is((await t.call('DELETE', `/api/tunnels/${id}`)).status, 200);
  assert.equal(await files(t), []);
  assert.equal(await allowedPorts(t), []);
  assert.equal(t.services.store.streams.value, []);
  assert.is((await t.call('DELETE', `/api/tunnels/${id}`)).status, 404);
});

s('a failed tunnel server step takes the stream server back and saves nothing', async ({ t }) => {
  t.sandbox.failNext('tunnelServer.setAllowedPorts');
  const res = await t.call('POST', '/api/tunnels', { body: tcp(42022) });
  assert.is(res.status, 500);
  assert.is(res.body.error, 'Failed to create tunnel');
  assert.match(res.body.details, /^Chisel reconfiguration failed: /);
  assert.equal(await files(t), []);
  assert.equal(t.services.store.streams.value, []);
  // the claim was released: the same port can be had now
  assert.is((await t.call('POST', '/api/tunnels', { body: tcp(42022) })).status, 201);
});

s('a failed nginx step leaves nothing behind', async ({ t }) => {
  t.sandbox.failNext('streams.apply', 'nginx: [emerg] bind() to 0.0.0.0:42022 failed (98: Address already in use)');
  const res = await t.call('POST', '/api/tunnels', { body: tcp(42022) });
  assert.is(res.status, 500);
  assert.match(res.body.details, /^Nginx configuration failed: nginx: \[emerg\] bind/);
  assert.equal(await allowedPorts(t), []);
  assert.equal(t.services.store.streams.value, []);
});

s('edit moves the server to a new public port and keeps the tunnel listener; a taken port is refused on its field', async ({ t }) => {
  const a = (await t.call('POST', '/api/tunnels', { body: tcp(42022) })).body.tunnel;
  await t.call('POST', '/api/tunnels', { body: tcp(42023) });
  const taken = await t.call('PATCH', `/api/tunnels/streams/${a.id}`, { body: { publicPort: 42023 } });
  assert.is(taken.status, 400);
  assert.equal(taken.body.details.issues, [{ path: 'publicPort', message: 'Public port 42023 is already in use by the TCP tunnel on public port 42023' }]);
  const moved = await t.call('PATCH', `/api/tunnels/streams/${a.id}`, { body: { publicPort: 42024, allow: ['198.51.100.7'], proxyProtocol: true } });
  assert.is(moved.status, 200, JSON.stringify(moved.body));
  assert.equal({ ...moved.body.tunnel }, { ...a, publicPort: 42024, allow: ['198.51.100.7'], proxyProtocol: true });
  assert.equal(await files(t), ['relay-stream-tcp-42023.conf', 'relay-stream-tcp-42024.conf']);
  assert.is((await t.call('PATCH', `/api/tunnels/streams/${a.id}`, { body: {} })).status, 400);
});

s('edit: the PROXY protocol on a UDP tunnel is refused on its field and nothing changes', async ({ t }) => {
  const u = (await t.call('POST', '/api/tunnels', { body: { protocol: 'udp', publicPort: 42053, port: 53 } })).body.tunnel;
  const refused = await t.call('PATCH', `/api/tunnels/streams/${u.id}`, { body: { proxyProtocol: true } });
  assert.is(refused.status, 400);
  assert.equal(refused.body.details.issues, [{ path: 'proxyProtocol', message: 'The PROXY protocol is offered for TCP tunnels only' }]);
  assert.equal(t.services.store.streams.get(u.id), u);
});

s('start-up and restore bring the stream servers to the records: a lost one written, one no tunnel names removed', async ({ t }) => {
  const on = (await t.call('POST', '/api/tunnels', { body: tcp(42022) })).body.tunnel;
  const off = (await t.call('POST', '/api/tunnels', { body: { protocol: 'udp', publicPort: 42053, port: 53 } })).body.tunnel;
  await t.call('PATCH', `/api/tunnels/${off.id}`, { body: { enabled: false } });
  const { streams } = t.services.system;
  await streams.apply([{ op: 'remove', name: 'relay-stream-tcp-42022.conf' }, { op: 'put', spec: { protocol: 'tcp', publicPort: 42999, tunnelPort: 61999, allow: [], proxyProtocol: false } }]);
  await reconcileAtStart(t.services);
  assert.equal(await files(t), ['relay-stream-tcp-42022.conf']);
  await streams.apply([{ op: 'remove', name: 'relay-stream-tcp-42022.conf' }]);
  assert.equal(await restoreHost(t.services), []);
  assert.equal(await files(t), ['relay-stream-tcp-42022.conf']);
  assert.equal(await allowedPorts(t), [on.tunnelPort]);
  // the traffic meter counts the stream tunnels' lines, a disabled one's too (its last hour stays)
  const names = servedTrafficNames(t.services.store);
  assert.ok(names.has('tcp:42022') && names.has('udp:42053'), [...names].join(' '));
});

s('agent-config gives each enabled stream tunnel its own session, /udp for UDP; absent without any', async ({ t }) => {
  assert.is((await t.call('GET', '/api/tunnels/agent-config')).body.streams, undefined);
  const a = (await t.call('POST', '/api/tunnels', { body: tcp(42022) })).body.tunnel;
  const b = (await t.call('POST', '/api/tunnels', { body: { protocol: 'udp', publicPort: 42021, port: 53 } })).body.tunnel;
  const off = (await t.call('POST', '/api/tunnels', { body: tcp(42030) })).body.tunnel;
  await t.call('PATCH', `/api/tunnels/${off.id}`, { body: { enabled: false } });
  const server = 'https://tunnel.example.test:443';
  const { body } = await t.call('GET', '/api/tunnels/agent-config');
  assert.equal(body.streams, [
    { id: b.id, protocol: 'udp', publicPort: 42021, port: 53, remote: `R:127.0.0.1:${b.tunnelPort}:127.0.0.1:53/udp`, chiselArgs: ['client', '--tls-skip-verify', server, `R:127.0.0.1:${b.tunnelPort}:127.0.0.1:53/udp`] },
    { id: a.id, protocol: 'tcp', publicPort: 42022, port: 22, remote: `R:127.0.0.1:${a.tunnelPort}:127.0.0.1:22`, chiselArgs: ['client', '--tls-skip-verify', server, `R:127.0.0.1:${a.tunnelPort}:127.0.0.1:22`] },
  ]);
  assert.equal(body.chiselArgs, ['client', '--tls-skip-verify', server], "the spec's arguments stay the HTTP tunnels'");
});

s('status: connected while a client holds the tunnel listener on loopback, sessions and bytes from the stream log lines', async ({ t }) => {
  const a = (await t.call('POST', '/api/tunnels', { body: tcp(42022) })).body.tunnel;
  const b = (await t.call('POST', '/api/tunnels', { body: { protocol: 'udp', publicPort: 42053, port: 53 } })).body.tunnel;
  const status = async () => (await t.call('GET', '/api/tunnels/streams/status')).body.streams as Array<{ id: string; connected: boolean; traffic: { lastMinute: { requests: number; bytesIn: number; bytesOut: number } } }>;
  assert.equal((await status()).map((x) => x.connected), [false, false]);
  // the clients' sessions: chisel's reverse listener (TCP) and UDP socket on the tunnel ports
  const client = t.sockets!.hold('tcp', a.tunnelPort);
  const udpClient = t.sockets!.hold('udp', b.tunnelPort);
  try {
    assert.ok(t.services.traffic.record(`<190>Nov 28 12:00:00 relay: {"v":"tcp:42022","s":200,"in":1000,"out":2000,"t":1.5}`));
    const now = await status();
    assert.equal(now.map((x) => [x.id, x.connected]), [[b.id, true], [a.id, true]]);
    const minute = now.find((x) => x.id === a.id)!.traffic.lastMinute;
    assert.equal([minute.requests, minute.bytesIn, minute.bytesOut], [1, 1000, 2000]);
  } finally {
    client();
    udpClient();
  }
});

s.run();
