// A reload's real outcome against a real nginx of its own (own prefix, free loopback ports): a good
// reload answers only once the new workers run, and a reload that fails at reload time although
// `nginx -t` passed (a listen on a port another process holds: -t binds nothing) is reported, by
// the host adapter and by the root helper's `nginx-reload`. A FIFO the new configuration includes
// holds nginx's master inside the reload for as long as the test likes, past the 400 ms the panel
// used to wait: the slow reload of a box with 1,000 vhosts, without writing 1,000 of them. (The
// master's children and its open files are read in /proc: Linux only, as the watch itself.)
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createDispatcher } from '../../../../lib/root-helper/dispatch.ts';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import { hostNginxControl } from '../../../../lib/system/proxy/host.ts';
import { childPids, nginxMasterPid } from '../../../../lib/system/proxy/nginx-proc.ts';
import { freePorts } from '../../../infra/ports.ts';
import { startProcess, stopProcess, waitFor, type Managed } from '../../../infra/processes.ts';
import { withTimeout } from '../../../helpers/timeout.ts';
import { ownNginxConf } from '../../../helpers/own-nginx-conf.ts';

const NGINX = '/usr/sbin/nginx';
/** longer than the fixed 400 ms the panel waited before it watched the workers */
const HOLD_MS = 800;

interface Ctx { dir: string; nginx: Managed | null; held: Server | null; ports: number[]; config: SystemConfig; master: number }
const s = suite<Ctx>('nginx reload: the real outcome', { dir: '', nginx: null, held: null, ports: [], config: systemConfig(), master: 0 });

const nginxConf = ownNginxConf();
const server = (port: number) => `server { listen 127.0.0.1:${port}; return 200 "port ${port}\\n"; }\n`;

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-nginx-reload-'));
  for (const d of ['logs', 'tmp', 'sites-enabled']) await mkdir(join(ctx.dir, d));
  ctx.ports = await freePorts(3);
  // another program on the third port: nginx -t passes a listen there, a reload cannot bind it
  ctx.held = createServer();
  await new Promise<void>((resolve) => ctx.held!.listen(ctx.ports[2], '127.0.0.1', resolve));
  await writeFile(join(ctx.dir, 'nginx.conf'), nginxConf);
  await writeFile(join(ctx.dir, 'sites-enabled', 'a.conf'), server(ctx.ports[0]!));
  execFileSync('/usr/bin/mkfifo', [join(ctx.dir, 'hold.fifo')]);
  ctx.config = systemConfig({
    driver: 'host',
    nginx: {
      prefix: ctx.dir,
      conf: join(ctx.dir, 'nginx.conf'),
      sitesAvailable: join(ctx.dir, 'sites-available'),
      sitesEnabled: join(ctx.dir, 'sites-enabled'),
      errorLog: join(ctx.dir, 'logs', 'error.log'),
      pidFile: join(ctx.dir, 'logs', 'nginx.pid'),
      listenAddress: '127.0.0.1',
    },
    timeouts: { defaultMs: 10_000 },
  });
  ctx.nginx = startProcess('nginx', NGINX, ['-p', ctx.dir, '-c', 'nginx.conf', '-e', 'logs/error.log', '-g', 'daemon off;'], join(ctx.dir, 'nginx.out'));
  await waitFor('nginx', async () => (await answer(ctx.ports[0]!)) === `port ${ctx.ports[0]}\n`, ctx.nginx);
  ctx.master = (await nginxMasterPid(ctx.config.nginx.pidFile))!;
  assert.is(ctx.master, ctx.nginx.child.pid, 'the master found through its pid file and /proc');
});

s.after(async (ctx) => {
  // a master a failed test left waiting at the FIFO handles no SIGTERM until it is let go
  await open(join(ctx.dir, 'hold.fifo'), constants.O_WRONLY | constants.O_NONBLOCK).then((h) => h.close(), () => {});
  if (ctx.nginx) await stopProcess(ctx.nginx);
  await new Promise((r) => (ctx.held ? ctx.held.close(r) : r(null)));
  await rm(ctx.dir, { recursive: true, force: true });
});

async function answer(port: number): Promise<string | null> {
  return fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) }).then((r) => r.text(), () => null);
}

/** The files a process has open. */
async function openFiles(pid: number): Promise<string[]> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  return Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
}

/** Whether an `nginx -s reload` of this prefix runs (it parses the whole configuration too). */
async function signallerRuns(prefix: string): Promise<boolean> {
  for (const pid of (await readdir('/proc')).filter((e) => /^\d+$/.test(e))) {
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (argv.includes(prefix) && argv.includes('-s')) return true;
  }
  return false;
}

/**
 * Holds nginx's master at the FIFO its new configuration includes (it waits there for a writer,
 * `vhost` open) for `ms`, then lets it go; answers whether `watched` settled meanwhile. An
 * `nginx -s reload` (a release before the master was signalled directly) is let through the FIFO
 * at once: only the master's reload is held.
 */
async function holdMaster(master: number, prefix: string, vhost: string, fifo: string, ms: number, watched: Promise<unknown>): Promise<boolean> {
  let settled = false;
  watched.then(() => (settled = true), () => (settled = true));
  const letGo = () => open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then((h) => h.close(), () => {});
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if ((await openFiles(master)).includes(vhost)) {
      await new Promise((r) => setTimeout(r, ms));
      const answered = settled;
      await letGo();
      return answered;
    }
    // the master waits for the signal until the signaller is through, so only the signaller is let go
    if (await signallerRuns(prefix)) await letGo();
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('nginx\'s master never reached the FIFO');
}

const timed = (ms: number, body: (ctx: Ctx) => Promise<void>) => (ctx: Ctx) => withTimeout('test', ms, () => body(ctx));

s('a good reload answers only once the new workers run (held past 400 ms), and the new listen then answers', timed(60_000, async (ctx) => {
  const before = (await childPids(ctx.master))!;
  const [vhost, fifo] = [join(ctx.dir, 'sites-enabled', 'b.conf'), join(ctx.dir, 'hold.fifo')];
  await writeFile(vhost, `include ${fifo};\n${server(ctx.ports[1]!)}`);
  try {
    const reload = hostNginxControl(ctx.config).reload();
    assert.is(await holdMaster(ctx.master, ctx.dir, vhost, fifo, HOLD_MS, reload), false, 'not answered while nginx is still loading');
    await reload;
    const after = (await childPids(ctx.master))!;
    assert.ok(after.some((pid) => !before.includes(pid)), `a new worker by the answer (before ${before}, after ${after})`);
    assert.is(await answer(ctx.ports[1]!), `port ${ctx.ports[1]}\n`);
  } finally {
    await writeFile(vhost, server(ctx.ports[1]!));
  }
}));

s('a listen on a held port: nginx -t passes, the root helper\'s reload answers the failure in nginx\'s words', timed(60_000, async (ctx) => {
  const vhost = join(ctx.dir, 'sites-enabled', 'c.conf');
  await writeFile(vhost, server(ctx.ports[2]!));
  await hostNginxControl(ctx.config).test();
  await writeFile(vhost, `include ${join(ctx.dir, 'hold.fifo')};\n${server(ctx.ports[2]!)}`);
  const bind = `bind() to 127.0.0.1:${ctx.ports[2]} failed (98: Address already in use)`;

  // the root helper's nginx-reload (the host adapter's reload, run by root) waits and answers
  // the outcome itself, from its own configuration and its own reads
  const helper = createDispatcher(ctx.config, { exact: [], prefix: [] }, () => {});
  const asked = helper.answer(JSON.stringify({ action: 'nginx-reload' }));
  assert.is(await holdMaster(ctx.master, ctx.dir, vhost, join(ctx.dir, 'hold.fifo'), HOLD_MS, asked), false, 'not answered while nginx is still loading');
  const { answer: reply } = await asked;
  assert.is(reply.ok, false);
  assert.match((reply as { error: string }).error, `nginx reload failed: ${bind}`);

  // what nginx serves is still the configuration before: port 3 is the other program's
  await rm(vhost);
  await hostNginxControl(ctx.config).reload();
  assert.is(await answer(ctx.ports[0]!), `port ${ctx.ports[0]}\n`);
  assert.match(await readFile(join(ctx.dir, 'logs', 'error.log'), 'utf8'), 'still could not bind()');
}));

s.run();
