// What the per-request counting of GET /metrics costs. Two panels seeded alike, one with
// `metrics.enabled` false, measured under the same load in alternating order within one run; and
// two such apps called in process (test/bench/metrics-hot-path.ts), the figure the target is judged on.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundle } from '../../build/build.mjs';
import { probe } from './http.mjs';
import { startNode, stopChild } from './proc.mjs';
import { adminHeaders, seed } from './seed.mjs';

/** CPU µs per request the metrics may add. */
export const METRICS_BUDGET_US = 3;

async function startPanel(dir, bundlePath, enabled) {
  const { configPath } = await seed(dir);
  const config = JSON.parse(await readFile(configPath, 'utf8'));
  await writeFile(configPath, JSON.stringify({ ...config, metrics: { enabled } }), { mode: 0o600 });
  const panel = startNode([bundlePath, '--config', configPath], { env: { NODE_ENV: 'production' }, cwd: dir, name: `panel, metrics ${enabled ? 'on' : 'off'}` });
  await panel.ready;
  const scrape = await probe(`${panel.url}/metrics`, { headers: adminHeaders() });
  if (scrape.status !== (enabled ? 200 : 404)) throw new Error(`GET /metrics with metrics ${enabled ? 'on' : 'off'}: ${scrape.status}`);
  return panel;
}

async function hotPath(dir) {
  const outfile = join(dir, 'metrics-hot-path.mjs');
  await bundle({ entry: fileURLToPath(new URL('./metrics-hot-path.ts', import.meta.url)), outfile, quiet: true });
  const { stdout } = await promisify(execFile)(process.execPath, [outfile]);
  return JSON.parse(stdout);
}

/**
 * `measureLoad(target, pid)` is the bench's warm-up plus measured runs (CPU ticks of the server);
 * each panel is measured twice, on-off-off-on, so drift of the machine's load hits both alike.
 */
export async function measureMetricsOverhead({ dir, bundlePath, measureLoad, log }) {
  const on = await startPanel(join(dir, 'on'), bundlePath, true);
  const off = await startPanel(join(dir, 'off'), bundlePath, false);
  try {
    const target = (panel) => ({ url: `${panel.url}/api/tunnels`, method: 'GET', headers: adminHeaders() });
    const runs = { on: [], off: [] };
    for (const [name, panel] of [['on', on], ['off', off], ['off', off], ['on', on]]) {
      log(`metrics ${name}: GET /api/tunnels`);
      runs[name].push(...(await measureLoad(target(panel), panel.pid)));
    }
    // total CPU over total requests, so a longer run weighs more
    const perReq = (list) => list.reduce((a, r) => a + r.cpuUsPerReq * r.requests, 0) / list.reduce((a, r) => a + r.requests, 0);
    const counting = await hotPath(dir);
    const result = {
      endpoint: 'GET /api/tunnels',
      cpuUsPerReqOn: perReq(runs.on),
      cpuUsPerReqOff: perReq(runs.off),
      runsOn: runs.on.map((r) => r.cpuUsPerReq),
      runsOff: runs.off.map((r) => r.cpuUsPerReq),
      inProcess: counting,
    };
    result.loadOverheadUs = result.cpuUsPerReqOn - result.cpuUsPerReqOff;
    result.overheadUs = counting.medianPairedNs / 1000;
    log(`metrics: ${result.cpuUsPerReqOn.toFixed(1)} µs/req on, ${result.cpuUsPerReqOff.toFixed(1)} off under load; in process ${(counting.medianNsOn / 1000).toFixed(2)} vs ${(counting.medianNsOff / 1000).toFixed(2)} µs, the tally alone ${counting.recordNs.toFixed(0)} ns`);
    return result;
  } finally {
    await stopChild(on);
    await stopChild(off);
  }
}

/** Its line in the bench's table of targets. */
export function metricsTarget(result) {
  const figure = 'metrics per-request CPU';
  const target = `≤ ${METRICS_BUDGET_US} µs/req more than with metrics.enabled false`;
  if (result.error) return { figure, target, measured: `n/a (${result.error})`, met: null };
  return {
    figure,
    target,
    // judged in process: the load runs' difference is within their own spread (several µs on a shared machine)
    measured:
      `${result.overheadUs.toFixed(2)} µs in process (median difference of ${result.inProcess.nsOn.length} back-to-back pairs of rounds of ${result.inProcess.requestsPerRound} ${result.endpoint}; medians ${(result.inProcess.medianNsOn / 1000).toFixed(2)} on vs ${(result.inProcess.medianNsOff / 1000).toFixed(2)} off; the route tally alone ${result.inProcess.recordNs.toFixed(0)} ns); ` +
      `under load ${result.loadOverheadUs.toFixed(1)} µs (${result.cpuUsPerReqOn.toFixed(1)} on vs ${result.cpuUsPerReqOff.toFixed(1)} off; runs on ${result.runsOn.map((v) => v.toFixed(1)).join(' / ')}, off ${result.runsOff.map((v) => v.toFixed(1)).join(' / ')})`,
    met: result.overheadUs <= METRICS_BUDGET_US,
  };
}
