// The per-runtime cost figures of `npm run bench -- --only=runtimes`: the kit app's GET /api/tunnels
// and the ticket round trip (POST /api/tickets by the source, POST /api/tickets/validate by the
// target), measured in process inside the runtime. CPU comes from process.cpuUsage (user + system)
// where the runtime has it; workerd has not (`not implemented`), so there it is performance.now()
// around the loop: the isolate's wall time, which counts CPU only while nothing else runs.
import { createTestApp } from '../../lib/testing.ts';
import { AGENTS, CHAT_SCOPE, INSTANCE } from './scenario.ts';

export interface RuntimeCost {
  clock: 'cpuUsage' | 'performance.now';
  requests: number;
  /** µs per GET /api/tunnels */
  tunnels: number;
  /** µs per ticket round trip (two requests) */
  roundTrip: number;
  /** µs to create an empty kit (memory store) and close it */
  kitStart: number;
}

/** Kits created and closed for `kitStart`, after a quarter as many unmeasured. */
const KIT_STARTS = 20;

const cpuUsage = (() => {
  try {
    process.cpuUsage();
    return () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    };
  } catch {
    return null;
  }
})();
const now = cpuUsage ?? (() => performance.now() * 1000);

/** µs per call of `task` over `count` calls, after `count / 4` unmeasured ones (the JIT's warm-up). */
async function cost(count: number, task: () => Promise<void>): Promise<number> {
  for (let i = 0; i < count / 4; i++) await task();
  const start = now();
  for (let i = 0; i < count; i++) await task();
  return (now() - start) / count;
}

const json = (headers: Record<string, string>, body: unknown): RequestInit => ({ method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });

export async function measure(requests: number): Promise<RuntimeCost> {
  // the spec's limits (10 tickets per agent per minute, 1,000 stored) would refuse a measured loop
  const kit = await createTestApp({ seed: { onboarded: true, agents: AGENTS }, ticketLimits: { maxTickets: Number.POSITIVE_INFINITY, requestsPerWindow: Number.POSITIVE_INFINITY } });
  try {
    const [admin, alice, bob] = [kit.as.admin(), kit.as.agent('alice'), kit.as.agent('bob')];
    await kit.fetch('/api/tickets/scopes', json(admin, CHAT_SCOPE));
    const instance = await (await kit.fetch('/api/tickets/instances', json(alice, INSTANCE))).json();
    await kit.fetch('/api/tickets/assignments', json(admin, { agentLabel: 'bob', instanceScope: instance.instanceScope }));
    const tunnels = await cost(requests, async () => {
      const response = await kit.fetch('/api/tunnels', { headers: admin });
      if (response.status !== 200) throw new Error(`GET /api/tunnels answered ${response.status}`);
      await response.arrayBuffer();
    });
    const roundTrip = await cost(requests, async () => {
      const issued = await kit.fetch('/api/tickets', json(alice, { scope: 'chat:send', instanceId: instance.instanceId, target: 'bob' }));
      const ticketId = (await issued.json())?.ticket?.id;
      const validated = await kit.fetch('/api/tickets/validate', json(bob, { ticketId }));
      if (validated.status !== 200) throw new Error(`POST /api/tickets/validate answered ${validated.status}: ${await validated.text()}`);
      await validated.arrayBuffer();
    });
    const kitStart = await cost(KIT_STARTS, async () => (await createTestApp()).close());
    return { clock: cpuUsage ? 'cpuUsage' : 'performance.now', requests, tunnels, roundTrip, kitStart };
  } finally {
    await kit.close();
  }
}
