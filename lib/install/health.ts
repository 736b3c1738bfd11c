// Waits for the panel's loopback listener to answer /api/health with 200, and stops waiting for a
// panel systemd shows crashing at start (install and upgrade alike).
import { request } from 'node:http';
import type { Installation } from './installation.ts';
import { crashLoop } from './unit-restarts.ts';

function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/health', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** What a wait asks and how it passes time: the real ones, or a test's. */
export interface HealthWaitTools {
  probe(port: number): Promise<boolean>;
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const REAL_HEALTH_WAIT: HealthWaitTools = { probe, now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/** Between two probes. */
export const PROBE_EVERY_MS = 250;
/** How often a wait asks `givesUp` (a systemctl call or two), in probes. */
const GIVE_UP_EVERY = 4;

/**
 * Waits for 200 on /api/health: true, or why not. `givesUp`, asked about once a second, ends the
 * wait early with its reason (a release that crashes at start need not be waited out).
 */
export async function waitForHealth(port: number, timeoutMs: number, givesUp?: () => Promise<string | null>, tools: HealthWaitTools = REAL_HEALTH_WAIT): Promise<true | string> {
  const until = tools.now() + timeoutMs;
  for (let probes = 1; ; probes++) {
    if (await tools.probe(port)) return true;
    if (tools.now() >= until) return `no answer within ${timeoutMs} ms`;
    if (givesUp && probes % GIVE_UP_EVERY === 0) {
      const reason = await givesUp();
      if (reason !== null) return reason;
    }
    await tools.sleep(PROBE_EVERY_MS);
  }
}

/**
 * The panel's unit, just started or restarted, answering on `port`: true, or why not. Gives up
 * once systemd restarted it twice or gave up on it (crashLoop), so a release that crashes at
 * start is not waited out to the timeout.
 */
export function waitForPanel(inst: Installation, port: number, timeoutMs: number, tools: HealthWaitTools = REAL_HEALTH_WAIT): Promise<true | string> {
  return waitForHealth(port, timeoutMs, () => crashLoop(inst, inst.system.units.panel), tools);
}
