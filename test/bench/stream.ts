// `npm run bench -- --only=stream`: nginx's stream proxy alone (no chisel), as a TCP tunnel's server
// renders it, against a direct loopback connection, in one run: throughput (a client sends
// --mb MiB to a sink, which answers once it has them all) and connection setup (a connect, one byte
// echoed, a close, one after the other, --connects times). Direct and proxied runs are interleaved,
// --rounds each; the figures are the median round, and the ratios proxied / direct.
// Run alone: node --import ./test/helpers/register.mjs test/bench/stream.ts [--mb=256] [--connects=2000] [--rounds=3]
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderStreamServer, streamBlock } from '../../lib/system/streams/render.ts';
import { freePorts } from '../infra/ports.ts';
import { startProcess, stopProcess, waitFor } from '../infra/processes.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const MB = arg('mb', 256);
const CONNECTS = arg('connects', 2000);
const ROUNDS = arg('rounds', 3);
const STREAM_MODULE = '/usr/lib/nginx/modules/ngx_stream_module.so';

const dir = await mkdtemp(join(tmpdir(), 'relay-bench-stream-'));
await mkdir(join(dir, 'logs'));
await mkdir(join(dir, 'streams'));
const [publicPort, sinkPort] = await freePorts(2) as [number, number];
await writeFile(join(dir, 'nginx.conf'), `load_module ${STREAM_MODULE};\nworker_processes 1;\npid logs/nginx.pid;\nerror_log logs/error.log;\nevents { worker_connections 1024; }\n${streamBlock(join(dir, 'streams'))}`);
await writeFile(join(dir, 'streams', 'relay-stream-tcp-bench.conf'),
  renderStreamServer({ protocol: 'tcp', publicPort, tunnelPort: sinkPort, allow: [], proxyProtocol: false }, { listenAddress: '127.0.0.1', trafficPort: null }));

// the tunnel client's app: counts what comes and answers `ok` at the end; echoes a lone byte
const sink = createServer((socket) => {
  let bytes = 0;
  socket.on('data', (d) => {
    bytes += d.length;
    if (bytes === 1) socket.write('!');
  });
  socket.on('end', () => socket.end('ok'));
});
await new Promise<void>((r) => sink.listen(sinkPort, '127.0.0.1', r));
const nginx = startProcess('nginx', '/usr/sbin/nginx', ['-p', dir, '-c', 'nginx.conf', '-e', 'logs/error.log', '-g', 'daemon off;'], join(dir, 'nginx.out'));

const chunk = Buffer.alloc(1 << 20, 0x61);

function throughput(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const socket = connect(port, '127.0.0.1');
    let sent = 0;
    const pump = () => {
      while (sent < MB) {
        sent++;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      socket.end();
    };
    socket.on('connect', pump);
    socket.on('data', () => undefined);
    socket.on('end', () => resolve(MB / (Number(process.hrtime.bigint() - started) / 1e9)));
    socket.on('error', reject);
  });
}

async function setup(port: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < CONNECTS; i++) {
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('x'));
      socket.once('data', () => socket.end());
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
  }
  return Number(process.hrtime.bigint() - started) / 1e3 / CONNECTS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  await waitFor('nginx', async () => (await setup.call(null, publicPort).then(() => true, () => false)), nginx);
  const rate = { direct: [] as number[], proxied: [] as number[] };
  const cost = { direct: [] as number[], proxied: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    rate.direct.push(await throughput(sinkPort));
    rate.proxied.push(await throughput(publicPort));
    cost.direct.push(await setup(sinkPort));
    cost.proxied.push(await setup(publicPort));
  }
  const r = { direct: median(rate.direct), proxied: median(rate.proxied) };
  const c = { direct: median(cost.direct), proxied: median(cost.proxied) };
  console.log(`stream proxy (nginx ${MB} MiB x ${ROUNDS} rounds, interleaved; median round):`);
  console.log(`  throughput: direct ${r.direct.toFixed(0)} MiB/s, through nginx's stream proxy ${r.proxied.toFixed(0)} MiB/s: ratio ${(r.proxied / r.direct).toFixed(2)} (goal >= 0.80)`);
  console.log(`  connection setup (connect, 1 byte echoed, close; ${CONNECTS} one after the other): direct ${c.direct.toFixed(0)} us, through nginx ${c.proxied.toFixed(0)} us: ${(c.proxied / c.direct).toFixed(2)}x, +${(c.proxied - c.direct).toFixed(0)} us a connection`);
} finally {
  await stopProcess(nginx);
  sink.close();
  await rm(dir, { recursive: true, force: true });
}
