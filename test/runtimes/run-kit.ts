// The whole scenario against the documented testing kit, as one JSON text: what every runtime
// prints (Node, Bun and Deno on stdout, workerd as its Worker's answer). The clock is injected
// (fixed at START); ids stay random and normalize() replaces them.
import { createTestApp } from '../../lib/testing.ts';
import { AGENTS, START, kitFlow, normalize, ticketFlow, type Send } from './scenario.ts';

/** The injected clock: always START, no timers (nothing in the scenario waits on one). */
export const FIXED_CLOCK = { now: () => START, every: () => () => {} };

export async function runScenario(): Promise<string> {
  const kit = await createTestApp({ seed: { onboarded: true, agents: AGENTS }, clock: FIXED_CLOCK });
  try {
    const send: Send = (path, init) => kit.fetch(path, init);
    const as = { admin: kit.as.admin, agent: (label: string) => kit.as.agent(label) };
    const answers = [...(await kitFlow(send, as)), ...(await ticketFlow(send, as))];
    return JSON.stringify(normalize(answers), null, 1);
  } finally {
    await kit.close();
  }
}
