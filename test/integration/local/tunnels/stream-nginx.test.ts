// TCP and UDP tunnels through a real nginx with Debian's stream module (libnginx-mod-stream), its
// own prefix and free loopback ports: the host adapter writes each tunnel's stream server, tests
// and reloads; a listener the test starts on the tunnel's loopback port plays chisel's reverse
// listener. Loopback is all of 127/8, so a source outside an allow list is a client bound to another
// loopback address. The sessions' lines go over syslog to a UDP socket feeding the real meter.
import { createSocket, type Socket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { systemClock } from '../../../../lib/clock.ts';
import { createDispatcher } from '../../../../lib/root-helper/dispatch.ts';
import { checkPublicPort, type PortUse } from '../../../../lib/tunnels/streams/ports.ts';
import { kernelSockets } from '../../../../lib/tunnels/streams/context.ts';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import { hostNginxControl } from '../../../../lib/system/proxy/host.ts';
import { createHostStreams } from '../../../../lib/system/streams/host.ts';
import { streamBlock } from '../../../../lib/system/streams/render.ts';
import type { StreamProxyAdapter, StreamSpec } from '../../../../lib/system/streams/types.ts';
import { TrafficMeter } from '../../../../lib/traffic/meter.ts';
import { freePorts } from '../../../infra/ports.ts';
import { startProcess, stopProcess, waitFor, type Managed } from '../../../infra/processes.ts';

const NGINX = '/usr/sbin/nginx';
const streamsDir = (ctx: Ctx) => join(ctx.dir, 'streams');
/** where Debian's libnginx-mod-stream puts the module (its modules-enabled/50-mod-stream.conf loads it) */
const STREAM_MODULE = '/usr/lib/nginx/modules/ngx_stream_module.so';

interface Ctx {
  dir: string;
  nginx: Managed | null;
  config: SystemConfig;
  streams: StreamProxyAdapter;
  /** [tcp public, udp public, tcp tunnel, udp tunnel, held, moved public] */
  ports: number[];
  echoTcp: Server | null;
  echoUdp: Socket | null;
  traffic: Socket | null;
  meter: TrafficMeter;
}
const s = suite<Ctx>('stream tunnels through real nginx', {} as Ctx);

const nginxConf = (streamsDir: string) => `# a test's own nginx (run with -p <prefix> -c nginx.conf)
load_module ${STREAM_MODULE};
worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log;
events { worker_connections 64; }
${streamBlock(streamsDir)}`;

s.before(async (ctx) => {
  if (!existsSync(STREAM_MODULE)) throw new Error(`nginx's stream module is not installed (${STREAM_MODULE}): apt-get install libnginx-mod-stream`);
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-streams-'));
  const streamsDir = join(ctx.dir, 'streams');
  for (const d of ['logs', streamsDir]) await mkdir(join(ctx.dir, d), { recursive: true });
  ctx.ports = await freePorts(7);
  const trafficPort = ctx.ports[6]!;
  ctx.meter = new TrafficMeter(systemClock);
  ctx.traffic = createSocket('udp4');
  ctx.traffic.on('message', (m) => ctx.meter.record(m.toString()));
  await new Promise<void>((r) => ctx.traffic!.bind(trafficPort, '127.0.0.1', r));
  await writeFile(join(ctx.dir, 'nginx.conf'), nginxConf(streamsDir));
  ctx.config = systemConfig({
    driver: 'host',
    nginx: {
      prefix: ctx.dir,
      conf: join(ctx.dir, 'nginx.conf'),
      streamsDir,
      errorLog: join(ctx.dir, 'logs', 'error.log'),
      pidFile: join(ctx.dir, 'logs', 'nginx.pid'),
      listenAddress: '127.0.0.1',
      trafficPort,
    },
    timeouts: { defaultMs: 10_000 },
  });
  const control = hostNginxControl(ctx.config);
  ctx.streams = createHostStreams(ctx.config, { nginxTest: control.test, nginxReload: control.reload });
  // the tunnel client's side: an echo on each tunnel listener's port
  // a client that leaves before the echo is back resets the connection: not this test's failure
  ctx.echoTcp = createServer((socket) => socket.on('error', () => undefined).pipe(socket));
  await new Promise<void>((r) => ctx.echoTcp!.listen(ctx.ports[2], '127.0.0.1', r));
  ctx.echoUdp = createSocket('udp4');
  ctx.echoUdp.on('message', (m, from) => ctx.echoUdp!.send(Buffer.concat([Buffer.from('echo:'), m]), from.port, from.address));
  await new Promise<void>((r) => ctx.echoUdp!.bind(ctx.ports[3], '127.0.0.1', r));
  ctx.nginx = startProcess('nginx', NGINX, ['-p', ctx.dir, '-c', 'nginx.conf', '-e', 'logs/error.log', '-g', 'daemon off;'], join(ctx.dir, 'nginx.out'));
  await waitFor('nginx', async () => existsSync(ctx.config.nginx.pidFile), ctx.nginx);
});

s.after(async (ctx) => {
  if (ctx.nginx) await stopProcess(ctx.nginx);
  ctx.echoTcp?.close();
  ctx.echoUdp?.close();
  ctx.traffic?.close();
  if (ctx.dir) await rm(ctx.dir, { recursive: true, force: true });
});

const tcpSpec = (ctx: Ctx, over: Partial<StreamSpec> = {}): StreamSpec => ({ protocol: 'tcp', publicPort: ctx.ports[0]!, tunnelPort: ctx.ports[2]!, allow: [], proxyProtocol: false, ...over });
const udpSpec = (ctx: Ctx): StreamSpec => ({ protocol: 'udp', publicPort: ctx.ports[1]!, tunnelPort: ctx.ports[3]!, allow: [], proxyProtocol: false });

/**
 * Sends `text` over TCP from `from`, answers what came back before the server closed (null: refused
 * or reset). `done`: whether what came back is all there is to wait for (by default, as many bytes as were sent).
 */
function tcpRoundTrip(port: number, text: string, from = '127.0.0.1', done = (got: string) => got.length >= text.length): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    let got = '';
    socket.setTimeout(3000, () => socket.destroy());
    socket.on('connect', () => socket.write(text));
    socket.on('data', (d) => {
      got += d.toString();
      if (done(got)) socket.end();
    });
    socket.on('error', () => resolve(null));
    socket.on('close', () => resolve(got === '' ? null : got));
  });
}

function udpRoundTrip(port: number, text: string): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      resolve(null);
    }, 3000);
    socket.on('message', (m) => {
      clearTimeout(timer);
      socket.close();
      resolve(m.toString());
    });
    socket.send(text, port, '127.0.0.1');
  });
}

s('a TCP echo and a UDP echo through the stream servers to the tunnel listeners', async (ctx) => {
  await ctx.streams.apply([{ op: 'put', spec: tcpSpec(ctx) }, { op: 'put', spec: udpSpec(ctx) }]);
  assert.equal(await ctx.streams.list(), [`relay-stream-tcp-${ctx.ports[0]}.conf`, `relay-stream-udp-${ctx.ports[1]}.conf`]);
  assert.is(await tcpRoundTrip(ctx.ports[0]!, 'hello over tcp'), 'hello over tcp');
  assert.is(await udpRoundTrip(ctx.ports[1]!, 'hello over udp'), 'echo:hello over udp');
});

s('the PROXY protocol: the client machine\'s app reads the real source address in a v1 header before the first byte', async (ctx) => {
  await ctx.streams.apply([{ op: 'put', spec: tcpSpec(ctx, { proxyProtocol: true }) }]);
  // the tunnel listener is an echo: what nginx sent it comes back, header first
  const got = await tcpRoundTrip(ctx.ports[0]!, 'after the header', '127.0.0.2', (text) => text.endsWith('after the header'));
  assert.match(got ?? '', new RegExp(`^PROXY TCP4 127\\.0\\.0\\.2 127\\.0\\.0\\.1 \\d+ ${ctx.ports[0]}\\r\\n`));
  await ctx.streams.apply([{ op: 'put', spec: tcpSpec(ctx) }]);
  assert.is(await tcpRoundTrip(ctx.ports[0]!, 'no header', '127.0.0.2'), 'no header', 'off again: the bytes alone');
});

s('a source outside the allow list is refused before a byte reaches the tunnel; one inside passes', async (ctx) => {
  let reached = 0;
  ctx.echoTcp!.on('connection', () => reached++);
  await ctx.streams.apply([{ op: 'put', spec: tcpSpec(ctx, { allow: ['127.0.0.2/32'] }) }]);
  assert.is(await tcpRoundTrip(ctx.ports[0]!, 'let me in', '127.0.0.1'), null);
  assert.is(reached, 0, 'the refused source never reached the tunnel listener');
  assert.is(await tcpRoundTrip(ctx.ports[0]!, 'from the allowed one', '127.0.0.2'), 'from the allowed one');
  assert.is(reached, 1);
  await ctx.streams.apply([{ op: 'put', spec: tcpSpec(ctx) }]);
});

s('the sessions are counted by the traffic meter, bytes each way', async (ctx) => {
  const name = `tcp:${ctx.ports[0]}`;
  ctx.meter.know(new Set([name, `udp:${ctx.ports[1]}`]));
  const before = ctx.meter.traffic(name).lastMinute.requests;
  assert.is(await tcpRoundTrip(ctx.ports[0]!, 'x'.repeat(1000)), 'x'.repeat(1000));
  // nginx logs a session when it ends; the line comes over loopback right after
  const deadline = Date.now() + 30_000;
  while (ctx.meter.traffic(name).lastMinute.requests === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const minute = ctx.meter.traffic(name).lastMinute;
  assert.is(minute.requests, before + 1, JSON.stringify(minute));
  assert.ok(minute.bytesIn >= 1000 && minute.bytesOut >= 1000, JSON.stringify(minute));
});

s('a colliding public port: refused by the check while nginx holds it, and a server nginx cannot bind leaves the others serving', async (ctx) => {
  const live = await kernelSockets();
  const use: PortUse = { range: { from: 1024, to: 65535 }, services: new Map(), tunnels: [], streams: [], claimed: () => false, live };
  assert.throws(() => checkPublicPort(use, 'tcp', ctx.ports[0]!), new RegExp(`^Public port ${ctx.ports[0]} is already in use: a program listens on 127\\.0\\.0\\.1:${ctx.ports[0]} \\(TCP\\)$`));
  assert.throws(() => checkPublicPort(use, 'udp', ctx.ports[1]!), new RegExp(`^Public port ${ctx.ports[1]} is already in use: a program listens on 127\\.0\\.0\\.1:${ctx.ports[1]} \\(UDP\\)$`));
  // nginx -t binds nothing: only the reload finds the port held, and the change is taken back
  const held = createServer();
  await new Promise<void>((r) => held.listen(ctx.ports[4], '127.0.0.1', r));
  try {
    const before = await readdir(streamsDir(ctx));
    let failure: Error | null = null;
    await ctx.streams.apply([{ op: 'put', spec: tcpSpec(ctx, { publicPort: ctx.ports[4]! }) }]).catch((e: Error) => (failure = e));
    assert.ok(failure, 'the apply was refused');
    assert.match(String(failure), /bind|Address already in use/);
    assert.equal(await readdir(streamsDir(ctx)), before, 'the refused server file is gone again');
    assert.is(await tcpRoundTrip(ctx.ports[0]!, 'still here'), 'still here');
    assert.is(await udpRoundTrip(ctx.ports[1]!, 'still here'), 'echo:still here');
  } finally {
    held.close();
  }
});

s('removing a server closes its port; a moved one listens on its new port', async (ctx) => {
  await ctx.streams.apply([{ op: 'remove', name: `relay-stream-tcp-${ctx.ports[0]}.conf` }, { op: 'put', spec: tcpSpec(ctx, { publicPort: ctx.ports[5]! }) }]);
  assert.is(await tcpRoundTrip(ctx.ports[0]!, 'gone'), null);
  assert.is(await tcpRoundTrip(ctx.ports[5]!, 'moved'), 'moved');
});

s("the root helper's streams action: a checked request written, tested and reloaded; a source that is no address refused before anything is written", async (ctx) => {
  const helper = createDispatcher(ctx.config, { exact: [], prefix: [] }, () => {});
  const spec = tcpSpec(ctx, { publicPort: ctx.ports[0]! });
  const done = await helper.answer(JSON.stringify({ action: 'streams', changes: [{ op: 'put', spec }] }));
  assert.equal(done.answer, { ok: true });
  assert.is(done.summary, 'streams (1 change): ok');
  assert.is(await tcpRoundTrip(ctx.ports[0]!, 'through the helper'), 'through the helper');
  const before = await readdir(streamsDir(ctx));
  for (const changes of [
    [{ op: 'put', spec: { ...spec, publicPort: ctx.ports[4]!, allow: ['all; include /etc/shadow'] } }],
    [{ op: 'remove', name: '../nginx.conf' }],
    [{ op: 'put', spec: { ...spec, publicPort: ctx.ports[4]!, root: '/' } }],
  ]) {
    const refused = await helper.answer(JSON.stringify({ action: 'streams', changes }));
    assert.is(refused.answer.ok, false, JSON.stringify(changes));
    assert.match((refused.answer as { error: string }).error, /^Refused: changes\.0\./);
  }
  assert.equal(await readdir(streamsDir(ctx)), before);
});

s.run();
