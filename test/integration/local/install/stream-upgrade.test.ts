// An upgrade of a box installed before the TCP and UDP tunnels, with a real nginx whose nginx.conf
// includes modules-enabled in its main context as Debian's does: a stream server's file waits in
// the streams directory, nothing listens on its port; the stream module arrives (Debian's
// 50-mod-stream.conf, as apt-get leaves it), the directories step writes the block and the
// upgrade's streams step tests and reloads the running nginx: the port then listens, the module
// loaded by a reload alone. Needs root (the pid file read as root's) and libnginx-mod-stream.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openInstallation, type Installation } from '../../../../lib/install/installation.ts';
import { streamServers } from '../../../../lib/install/steps/upgrade-streams.ts';
import { ensureStreamBlock, streamBlockPath } from '../../../../lib/install/stream-block.ts';
import { saveFiles } from '../../../../lib/install/file-snapshot.ts';
import { streamsDirOf } from '../../../../lib/system/config.ts';
import { renderStreamServer, streamFileName } from '../../../../lib/system/streams/render.ts';
import type { StreamSpec } from '../../../../lib/system/streams/types.ts';
import { freePorts } from '../../../infra/ports.ts';
import { startProcess, stopProcess, waitFor, type Managed } from '../../../infra/processes.ts';

const NGINX = '/usr/sbin/nginx';
const STREAM_MODULE = '/usr/lib/nginx/modules/ngx_stream_module.so';

const s = suite<{ dir: string; nginx: Managed | null; inst: Installation; port: number }>('upgrade: the stream servers listen after it (real nginx)', { dir: '', nginx: null, inst: null as never, port: 0 });

/** Debian's nginx.conf as far as the stream block is concerned: modules-enabled in the main context. */
const nginxConf = `worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log;
include modules-enabled/*.conf;
events { worker_connections 64; }
`;

s.before(async (ctx) => {
  if (!existsSync(STREAM_MODULE)) throw new Error(`nginx's stream module is not installed (${STREAM_MODULE}): apt-get install libnginx-mod-stream`);
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-stream-upgrade-'));
  const nginx = join(ctx.dir, 'etc/nginx');
  for (const d of ['logs', 'modules-enabled', 'sites-available', 'sites-enabled']) await mkdir(join(nginx, d), { recursive: true });
  await writeFile(join(nginx, 'nginx.conf'), nginxConf);
  const [port, tunnelPort] = await freePorts(2);
  ctx.port = port!;
  ctx.inst = openInstallation({
    prefix: ctx.dir, json: true, user: 'relay-panel', harden: false, packages: false, downloads: false, release: ctx.dir, node: process.execPath, healthTimeoutMs: 0, purge: false,
    system: {
      nginx: {
        prefix: nginx, conf: join(nginx, 'nginx.conf'), sitesAvailable: join(nginx, 'sites-available'), sitesEnabled: join(nginx, 'sites-enabled'),
        errorLog: join(nginx, 'logs/error.log'), pidFile: join(nginx, 'logs/nginx.pid'), listenAddress: '127.0.0.1',
      },
      timeouts: { defaultMs: 10_000 },
    },
  });
  // what a panel wrote (or a restore put back) while no block included the directory
  const spec: StreamSpec = { protocol: 'tcp', publicPort: ctx.port, tunnelPort: tunnelPort!, allow: [], proxyProtocol: false };
  const streams = streamsDirOf(ctx.inst.system);
  await mkdir(streams, { recursive: true });
  await writeFile(join(streams, streamFileName(spec)), renderStreamServer(spec, { listenAddress: '127.0.0.1', trafficPort: null }));
  ctx.nginx = startProcess('nginx', NGINX, ['-p', nginx, '-c', 'nginx.conf', '-e', 'logs/error.log', '-g', 'daemon off;'], join(ctx.dir, 'nginx.out'));
  await waitFor('nginx', async () => existsSync(ctx.inst.system.nginx.pidFile), ctx.nginx);
});

s.after(async (ctx) => {
  if (ctx.nginx) await stopProcess(ctx.nginx);
  await rm(ctx.dir, { recursive: true, force: true });
});

const listens = (port: number) => new Promise<boolean>((resolve) => {
  const socket = connect({ port, host: '127.0.0.1' });
  socket.on('connect', () => { socket.destroy(); resolve(true); });
  socket.on('error', () => resolve(false));
});

s('the module arrives, the block is written, the streams step reloads: the stream server listens', async ({ inst, port }) => {
  assert.is(await listens(port), false, 'before: no block, nothing listens');
  const before = (await saveFiles([streamBlockPath(inst.system)]))[0];
  await writeFile(join(inst.system.nginx.prefix!, 'modules-enabled/50-mod-stream.conf'), `load_module ${STREAM_MODULE};\n`);
  assert.equal(await ensureStreamBlock(inst.system), { changed: true, loaded: true });
  assert.is(await listens(port), false, 'written, not yet read');
  const outcome = await streamServers(inst, before);
  assert.is(outcome.status, 'changed', outcome.message);
  assert.match(outcome.message, 'nginx tested and reloaded');
  assert.ok(await listens(port), 'after the upgrade the stream server listens');
});

s.run();
