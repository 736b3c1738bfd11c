// The whole scenario against the documented testing kit, as one JSON text: what every runtime
// prints (Node, Bun and Deno on stdout, workerd as its Worker's answer). The clock is injected
// (fixed at START); ids stay random and normalize() replaces them.
import { createTestApp } from '../../lib/testing.ts';
import { sweepGetRoutes } from './route-sweep.ts';
import { AGENTS, START, kitFlow, normalize, ticketFlow, type Send } from './scenario.ts';

/** The injected clock: always START, no timers (nothing in the scenario waits on one). */
const FIXED_CLOCK = { now: () => START, every: () => () => {} };

/** The kit every runtime runs: onboarded, the scenario's agents seeded, the fixed clock. */
export const openKit = () => createTestApp({ seed: { onboarded: true, agents: AGENTS }, clock: FIXED_CLOCK });

export async function runScenario(): Promise<string> {
  const kit = await openKit();
  try {
    const send: Send = (path, init) => kit.fetch(path, init);
    const as = { admin: kit.as.admin, agent: (label: string) => kit.as.agent(label) };
    const answers = [...(await kitFlow(send, as)), ...(await ticketFlow(send, as))];
    return JSON.stringify(normalize(answers), null, 1);
  } finally {
    await kit.close();
  }
}

/** The status of every GET route (route-sweep.ts), one line each. */
export async function runSweep(): Promise<string> {
  const kit = await openKit();
  try {
    return (await sweepGetRoutes(kit)).join('\n');
  } finally {
    await kit.close();
  }
}
