// A box of 1,000 tunnels beside a box of 10, in one run (`npm run bench -- --only=scale`, never
// part of the full run): the restart, the first start after an upgrade that changed every template, GET /api/tunnels,
// a tunnel's create, toggle and delete end to end, and the traffic meter's CPU per line at 1,000
// and 10,000 lines/s. Each figure is beside the same figure of the small box, measured in turns so
// that the load from others falls on both; the load average is beside each.
//
// The boxes are made once and kept in `<outDir>/scale-boxes/` (their first start writes every vhost
// and, in the sandbox, a certificate per enabled tunnel: minutes at 1,000); a box whose seed or
// tunnel count differs is made again. Every measurement leaves a box as it found it: a created
// tunnel is deleted, a toggled one toggled back.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { autocannon } from './autocannon.mjs';
import { BOX_START_ENV, median } from './cold-start.mjs';
import { send } from './http.mjs';
import { cpuNs, startNode, stopChild } from './proc.mjs';
import { adminHeaders, seed } from './seed.mjs';
import { measureMeterAtScale } from './traffic-receiver.mjs';

export const SCALE_BOXES = [10, 1000];
const SEED_SOURCE = fileURLToPath(new URL('./seed.mjs', import.meta.url));
const load1 = () => Number(loadavg()[0].toFixed(2));
const VHOSTS = /sites-available\/relay-.*\.conf$/;

/** The box of `tunnels` tunnels, made (seeded, started once, stopped) unless the cache has it. */
async function cachedBox(cacheDir, tunnels, panelArgs) {
  const key = createHash('sha256').update(await readFile(SEED_SOURCE)).update(String(tunnels)).digest('hex').slice(0, 12);
  const dir = join(cacheDir, `box-${tunnels}-${key}`);
  const configPath = join(dir, 'config.json');
  if (await stat(join(dir, 'made')).catch(() => null)) return { tunnels, dir, configPath };
  await rm(dir, { recursive: true, force: true });
  await seed(dir, { tunnelCount: tunnels });
  const first = startNode([...panelArgs, '--config', configPath], { env: { ...BOX_START_ENV, NODE_ENV: 'production' }, cwd: dir, name: `scale box ${tunnels}`, timeoutMs: 1_800_000 });
  await first.ready;
  await stopChild(first);
  await writeFile(join(dir, 'made'), `${new Date().toISOString()}\n`);
  return { tunnels, dir, configPath };
}

async function vhostFiles(box) {
  const root = join(box.dir, 'data', 'system');
  return (await readdir(root, { recursive: true })).filter((f) => VHOSTS.test(f)).map((f) => join(root, f));
}

/** Spawn to the first 200 on /api/health, and the start's CPU. */
async function start(box, panelArgs, name) {
  const at = performance.now();
  const panel = startNode([...panelArgs, '--config', box.configPath], { env: { ...BOX_START_ENV, NODE_ENV: 'production' }, cwd: box.dir, name, timeoutMs: 120_000 });
  await panel.ready;
  for (;;) {
    const answer = await send(`${panel.url}/api/health`, { timeoutMs: 5000 }).catch(() => undefined);
    if (answer?.status === 200) break;
    if (performance.now() - at > 120_000) throw new Error(`${name}: no 200 on /api/health within 120 s`);
    await new Promise((r) => setTimeout(r, 2));
  }
  return { panel, ms: performance.now() - at, cpuMs: cpuNs(panel.pid) / 1e6 };
}

const MARK = '# relay-panel sha256 ';
const OLDER = '# rendered by an earlier release\n';

/**
 * The vhost as a release with other templates wrote it: other text, stamped with its own digest as
 * lib/system/proxy/vhost-stamp.ts stamps (so it counts as the panel's own, not as a hand edit,
 * which the tunnel repair would rewrite one tunnel at a time).
 */
async function asAnEarlierRelease(file) {
  const text = await readFile(file, 'utf8');
  const at = text.lastIndexOf(`\n${MARK}`);
  const body = `${at < 0 ? text : text.slice(0, at + 1)}${OLDER}`;
  await writeFile(file, `${body}${MARK}${createHash('sha256').update(body).digest('hex')}\n`);
}

/**
 * The panel's stamps (lib/system/proxy/vhost-stamps.ts, `VHOST_STAMPS_FILE`: the bench runs without
 * the TypeScript loader) as that release left them: each under its own template fingerprint, which
 * this release's differs from. A start takes a tunnel's stamp at its word until it listens, so the
 * files alone would not show it an upgrade; the fingerprint does, whatever the marks say.
 */
async function stampedByAnEarlierRelease(box) {
  const path = join(box.dir, 'data', 'vhost-stamps.json');
  const stamps = JSON.parse(await readFile(path, 'utf8'));
  for (const stamp of Object.values(stamps.vhosts)) stamp.release = 'an earlier release';
  delete stamps.templates;
  await writeFile(path, JSON.stringify(stamps), { mode: 0o600 });
}

/** A restart with nothing changed, then the first start after an upgrade whose templates all changed (every vhost read, rendered and rewritten). */
async function starts(box, panelArgs) {
  const restart = await start(box, panelArgs, `restart ${box.tunnels}`);
  await stopChild(restart.panel);
  for (const file of await vhostFiles(box)) await asAnEarlierRelease(file);
  await stampedByAnEarlierRelease(box);
  const changed = await start(box, panelArgs, `start after a change ${box.tunnels}`);
  await stopChild(changed.panel);
  const left = [];
  for (const file of await vhostFiles(box)) if ((await readFile(file, 'utf8')).includes(OLDER)) left.push(file);
  if (left.length) throw new Error(`the start after a change left ${left.length} vhosts unrewritten, e.g. ${left[0]}`);
  return { restart: { ms: restart.ms, cpuMs: restart.cpuMs }, allChanged: { ms: changed.ms, cpuMs: changed.cpuMs }, load: load1() };
}

async function timed(panel, method, path, body) {
  const at = performance.now();
  const answer = await send(`${panel.url}${path}`, { method, headers: adminHeaders(), body, timeoutMs: 60_000 });
  const ms = performance.now() - at;
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
  return { ms, body: answer.json() };
}

/** GET /api/tunnels's CPU per request, then `changes` tunnels created, toggled off and on, and deleted, one at a time. */
async function requests(box, panelArgs, { seconds, changes }) {
  const { panel } = await start(box, panelArgs, `requests ${box.tunnels}`);
  try {
    await autocannon({ url: `${panel.url}/api/tunnels`, headers: adminHeaders(), connections: 10, duration: 1 });
    const before = cpuNs(panel.pid);
    const list = await autocannon({ url: `${panel.url}/api/tunnels`, headers: adminHeaders(), connections: 10, duration: seconds });
    if (list.non2xx > 0 || list['2xx'] === 0) throw new Error(`GET /api/tunnels: ${list.non2xx} answers not 2xx`);
    const listUs = (cpuNs(panel.pid) - before) / 1e3 / list['2xx'];
    const ms = { create: [], disable: [], enable: [], delete: [] };
    for (let i = 0; i < changes; i++) {
      const created = await timed(panel, 'POST', '/api/tunnels', { subdomain: `scale-${i}`, port: 40000 + i, description: 'scale bench' });
      ms.create.push(created.ms);
      const id = created.body.tunnel.id;
      ms.disable.push((await timed(panel, 'PATCH', `/api/tunnels/${id}`, { enabled: false })).ms);
      ms.enable.push((await timed(panel, 'PATCH', `/api/tunnels/${id}`, { enabled: true })).ms);
      ms.delete.push((await timed(panel, 'DELETE', `/api/tunnels/${id}`)).ms);
    }
    return { listUs, ms, load: load1() };
  } finally {
    await stopChild(panel);
  }
}

export async function measureScale({ cacheDir, panelArgs, runs = 3, seconds = 3, changes = 5, log = console.log }) {
  await mkdir(cacheDir, { recursive: true });
  const boxes = [];
  for (const tunnels of SCALE_BOXES) {
    log(`scale: the box of ${tunnels} tunnels (made once, then from ${cacheDir})`);
    boxes.push({ ...(await cachedBox(cacheDir, tunnels, panelArgs)), starts: [], requests: [] });
  }
  for (const box of boxes) box.vhosts = (await vhostFiles(box)).length;
  for (let round = 0; round < runs; round++) {
    for (const box of round % 2 ? [...boxes].reverse() : boxes) {
      box.starts.push(await starts(box, panelArgs));
      box.requests.push(await requests(box, panelArgs, { seconds, changes }));
      log(`scale: round ${round + 1} of ${runs}, ${box.tunnels} tunnels done, load average ${load1()}`);
    }
  }
  const meter = await measureMeterAtScale({ boxes: SCALE_BOXES, seconds, log });
  return { boxes, meter };
}

const ratio = (big, small) => `${(big / small).toFixed(2)}×`;

/** One line per figure: each box's median, the large box against the small one, the load averages. */
export function describeScale({ boxes, meter }) {
  const [small, large] = boxes;
  const m = (box, pick) => median(box.starts.map(pick));
  const r = (box, pick) => median(box.requests.map(pick));
  const loads = (box) => box.starts.map((s) => s.load).join(', ');
  const lines = [`Boxes of ${small.tunnels} tunnels (${small.vhosts} vhosts) and ${large.tunnels} tunnels (${large.vhosts} vhosts), medians of ${small.starts.length} rounds; load averages ${loads(small)} / ${loads(large)}:`];
  const row = (what, a, b, unit) => lines.push(`- ${what}: ${a.toFixed(unit === 'µs' ? 1 : 0)} ${unit} / ${b.toFixed(unit === 'µs' ? 1 : 0)} ${unit} (${ratio(b, a)})`);
  row('restart, to the first 200 on /api/health', m(small, (s) => s.restart.ms), m(large, (s) => s.restart.ms), 'ms');
  row('restart, CPU', m(small, (s) => s.restart.cpuMs), m(large, (s) => s.restart.cpuMs), 'ms');
  row('first start after an upgrade that changed every template', m(small, (s) => s.allChanged.ms), m(large, (s) => s.allChanged.ms), 'ms');
  row('first start after an upgrade that changed every template, CPU', m(small, (s) => s.allChanged.cpuMs), m(large, (s) => s.allChanged.cpuMs), 'ms');
  row('GET /api/tunnels, CPU per request', r(small, (q) => q.listUs), r(large, (q) => q.listUs), 'µs');
  for (const step of ['create', 'disable', 'enable', 'delete']) {
    const all = (box) => box.requests.flatMap((q) => q.ms[step]);
    row(`tunnel ${step}, end to end (median of ${all(small).length})`, median(all(small)), median(all(large)), 'ms');
  }
  for (const rate of [...new Set(meter.map((x) => x.rate))]) {
    const at = (vhosts, pick) => median(meter.filter((x) => x.rate === rate && x.vhosts === vhosts).map(pick));
    const counted = meter.filter((x) => x.rate === rate).map((x) => `${x.counted}/${x.sent}`).join(', ');
    const loads = meter.filter((x) => x.rate === rate).map((x) => x.load.toFixed(2)).join(', ');
    row(`traffic meter at ${rate} lines/s, CPU per line raw (counted ${counted}; load ${loads})`, at(small.tunnels, (x) => x.usPerLine), at(large.tunnels, (x) => x.usPerLine), 'µs');
    // the goal is read against this one: the idle receiver's timer is no cost of a counted line
    row(`traffic meter at ${rate} lines/s, CPU per line net of the idle child's in as long a window`, at(small.tunnels, (x) => x.netUsPerLine), at(large.tunnels, (x) => x.netUsPerLine), 'µs');
  }
  lines.push(`(sandbox driver: no nginx runs; a tunnel change's nginx -t and reload are not in these figures)`);
  return lines.join('\n');
}
