// Waits for the panel's loopback listener to answer /api/health with 200.
import { request } from 'node:http';

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

/** How often a wait asks `givesUp` (a systemctl call or two), in probes of 250 ms. */
const GIVE_UP_EVERY = 4;

/**
 * Waits for 200 on /api/health: true, or why not. `givesUp`, asked about once a second, ends the
 * wait early with its reason (a release that crashes at start need not be waited out).
 */
export async function waitForHealth(port: number, timeoutMs: number, givesUp?: () => Promise<string | null>): Promise<true | string> {
  const until = Date.now() + timeoutMs;
  for (let probes = 1; ; probes++) {
    if (await probe(port)) return true;
    if (Date.now() >= until) return `no answer within ${timeoutMs} ms`;
    if (givesUp && probes % GIVE_UP_EVERY === 0) {
      const reason = await givesUp();
      if (reason !== null) return reason;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
