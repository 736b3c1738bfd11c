// Bench figures of the services' logs, kept apart from run.mjs so its other additions merge easily:
// GET /api/system/stats CPU per request against GET /api/health (a target row), and 50
// concurrent viewers of WS /api/services/:name/logs on a panel that drives the fake journalctl
// (host driver): the panel's RSS and its follow processes, which must be exactly one.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { memory, startNode, stopChild } from './proc.mjs';
import { ratioTarget } from './ratio-target.mjs';
import { adminHeaders } from './seed.mjs';

const FAKES = fileURLToPath(new URL('../fakes/bin/', import.meta.url));
const MiB = 1024 * 1024;
export const LOG_VIEWERS = 50;

/** The target row: cached stats within 1.5× the CPU per request of /api/health. */
export const statsTarget = (byKey) =>
  ratioTarget(byKey, { key: 'stats', baseKey: 'health', figure: 'GET /api/system/stats CPU µs/req', target: '≤ 1.5× GET /api/health', limit: 1.5 });

/** Child processes of `pid` whose command line names journalctl. */
async function followProcesses(pid) {
  let count = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== pid) continue;
      if ((await readFile(`/proc/${entry}/cmdline`, 'utf8')).includes('journalctl')) count++;
    } catch {
      // ended while we looked
    }
  }
  return count;
}

function openViewer(url, backlog) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: adminHeaders() });
    const viewer = { ws, lines: 0, closed: new Promise((ok) => ws.once('close', ok)) };
    let reached;
    viewer.backlog = new Promise((ok) => (reached = ok));
    ws.on('message', () => {
      if (++viewer.lines === backlog) reached();
    });
    ws.once('open', () => resolve(viewer));
    ws.once('error', reject);
  });
}

const until = async (what, check, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

/**
 * Starts the bundle on the host driver with the fake systemctl and journalctl (no tunnels, so
 * nothing else touches the host), opens LOG_VIEWERS viewers of one service, waits until each has
 * its 100-line backlog and some followed lines, and reads the panel's RSS and follow processes.
 */
export async function measureLogViewers({ dir, bundlePath, log }) {
  const dataDir = join(dir, 'data');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const configPath = join(dir, 'config.json');
  await writeFile(
    configPath,
    JSON.stringify({
      ip: '203.0.113.10',
      domain: 'relay.bench.test',
      email: 'ops@bench.test',
      dataDir,
      onboarding: { status: 'COMPLETED' },
      listen: { host: '127.0.0.1', port: 0 },
      system: {
        driver: 'host',
        binaries: { systemctl: join(FAKES, 'systemctl'), journalctl: join(FAKES, 'journalctl') },
        chisel: { dir: join(dir, 'chisel') },
        authelia: { dir: join(dir, 'authelia') },
        pki: { dir: join(dir, 'pki') },
      },
    }),
  );
  const panel = startNode([bundlePath, '--config', configPath], { env: { NODE_ENV: 'production' }, cwd: dir, name: 'panel (host driver, fakes)' });
  const viewers = [];
  try {
    await panel.ready;
    const rssBefore = memory(panel.pid).rss;
    const url = `${panel.url.replace('http:', 'ws:')}/api/services/proxy/logs`;
    log(`log viewers: opening ${LOG_VIEWERS} viewers of ${url}`);
    for (let i = 0; i < LOG_VIEWERS; i++) viewers.push(await openViewer(url, 100));
    await Promise.all(viewers.map((v) => v.backlog));
    // let the fake journalctl (a line every 50 ms) run for a while under 50 viewers
    await new Promise((r) => setTimeout(r, 2000));
    const result = {
      viewers: viewers.length,
      followProcesses: await followProcesses(panel.pid),
      rssBefore,
      rssWithViewers: memory(panel.pid).rss,
      minLinesPerViewer: Math.min(...viewers.map((v) => v.lines)),
    };
    for (const v of viewers) v.ws.close();
    await Promise.all(viewers.map((v) => v.closed));
    await until('follow process gone after the viewers left', async () => (await followProcesses(panel.pid)) === 0).then(
      () => (result.followProcessesAfterClose = 0),
      async () => (result.followProcessesAfterClose = await followProcesses(panel.pid)),
    );
    log(`log viewers: ${result.followProcesses} follow process(es), RSS ${(result.rssBefore / MiB).toFixed(1)} -> ${(result.rssWithViewers / MiB).toFixed(1)} MiB`);
    return result;
  } finally {
    for (const v of viewers) v.ws.terminate();
    await stopChild(panel);
  }
}

/** The target row of the log viewers' figure. */
export function logViewersTarget(result) {
  return {
    figure: `${LOG_VIEWERS} concurrent log viewers (fake journalctl)`,
    target: '1 follow process; RSS reported',
    measured: result.error
      ? `n/a (${result.error})`
      : `${result.followProcesses} follow process(es) (${result.followProcessesAfterClose} after they closed); RSS ${(result.rssBefore / MiB).toFixed(1)} → ${(result.rssWithViewers / MiB).toFixed(1)} MiB; ≥ ${result.minLinesPerViewer} lines each`,
    met: result.error ? null : result.followProcesses === 1 && result.followProcessesAfterClose === 0,
  };
}
