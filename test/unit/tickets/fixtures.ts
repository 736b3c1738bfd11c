import * as assert from 'uvu/assert';
import { createTestApp, type Caller, type TestApp } from '../../../lib/testing.ts';
import { defined } from '../../helpers/defined.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

// A ticket world: the chat scope, agents alice (instance owner), bob (assigned target), carol (not
// assigned), and alice's chat:send instance with bob assigned to it.

export const SERIALS: Record<string, string> = { alice: 'A11CE', bob: 'B0B', carol: 'CA201', dave: 'DA7E' };
export const agent = (label: string): Caller => ({ agent: label, serial: SERIALS[label] ?? 'FFFF' });

export const CHAT_SCOPE = {
  name: 'chat',
  version: '1.0.0',
  description: 'Messages between agents',
  scopes: [
    { name: 'chat:send', description: 'Send messages', instanceScoped: true },
    { name: 'chat:read', description: 'Read messages', instanceScoped: false },
  ],
  transport: { strategies: ['tunnel', 'relay', 'direct'], preferred: 'relay', port: 0, protocol: 'wss' },
};

export const INSTANCE_BODY = { scope: 'chat:send', transport: { strategies: ['relay', 'direct'], preferred: 'direct', direct: { host: 'alice.example.com', port: 8443 } } };

export interface World {
  t: TestApp;
  clock: ManualClock;
  instanceId: string;
  instanceScope: string;
}

/** `durable`: the store on disk, for restart tests. */
export async function ticketApp({ durable = false } = {}): Promise<{ t: TestApp; clock: ManualClock }> {
  const clock = new ManualClock();
  const t = await createTestApp({ clock, durable });
  await t.completeOnboarding();
  return { t, clock };
}

export async function addAgents(t: TestApp, labels: string[], capabilities = ['chat:send']): Promise<void> {
  for (const label of labels) await t.addAgent(label, capabilities, [], SERIALS[label]);
}

export async function registerChatScope(t: TestApp): Promise<void> {
  const { status } = await t.call('POST', '/api/tickets/scopes', { body: CHAT_SCOPE });
  assert.is(status, 201);
}

export async function registerInstance(t: TestApp, owner = 'alice', body: unknown = INSTANCE_BODY): Promise<{ instanceId: string; instanceScope: string }> {
  const r = await t.call('POST', '/api/tickets/instances', { as: agent(owner), body });
  assert.ok(r.status === 201 || r.status === 200, `instance registration answered ${r.status} ${JSON.stringify(r.body)}`);
  return { instanceId: r.body.instanceId, instanceScope: r.body.instanceScope };
}

export async function assign(t: TestApp, agentLabel: string, instanceScope: string): Promise<void> {
  const { status } = await t.call('POST', '/api/tickets/assignments', { body: { agentLabel, instanceScope } });
  assert.ok(status === 201 || status === 200);
}

export async function makeWorld(options: { durable?: boolean } = {}): Promise<World> {
  const { t, clock } = await ticketApp(options);
  await addAgents(t, ['alice', 'bob', 'carol']);
  await registerChatScope(t);
  const { instanceId, instanceScope } = await registerInstance(t);
  await assign(t, 'bob', instanceScope);
  return { t, clock, instanceId, instanceScope };
}

export function requestTicket(w: World, source = 'alice', body: Record<string, unknown> = {}) {
  return w.t.call('POST', '/api/tickets', { as: agent(source), body: { scope: 'chat:send', instanceId: w.instanceId, target: 'bob', ...body } });
}

export async function issueTicket(w: World): Promise<string> {
  const r = await requestTicket(w);
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body.ticket.id;
}

export async function validateTicket(w: World, ticketId: string, caller = 'bob') {
  return w.t.call('POST', '/api/tickets/validate', { as: agent(caller), body: { ticketId } });
}

/** A validated ticket and the session bob opened from it. */
export async function openSession(w: World): Promise<{ ticketId: string; sessionId: string }> {
  const ticketId = await issueTicket(w);
  assert.is((await validateTicket(w, ticketId)).status, 200);
  const r = await w.t.call('POST', '/api/tickets/sessions', { as: agent('bob'), body: { ticketId } });
  assert.is(r.status, 201, JSON.stringify(r.body));
  return { ticketId, sessionId: r.body.session.sessionId };
}

export async function revokeAgent(t: TestApp, label: string): Promise<void> {
  const now = new Date().toISOString();
  await t.services.store.agents.update((agents) => {
    for (const record of agents) if (record.label === label) record.revokedAt = now;
  });
}

export async function revokeSerial(t: TestApp, label: string): Promise<void> {
  await t.services.store.revocations.update((list) => void list.push({ serial: defined(SERIALS[label], `a serial for ${label}`), label, revokedAt: new Date().toISOString() }));
}

export async function setCapabilities(t: TestApp, label: string, capabilities: string[]): Promise<void> {
  await t.services.store.agents.update((agents) => {
    for (const record of agents) if (record.label === label) record.capabilities = capabilities;
  });
}

export const MINUTE = 60_000;

/** Moves the clock and waits until the timers' writes are on disk. */
export async function advance(w: { t: TestApp; clock: ManualClock }, ms: number): Promise<void> {
  w.clock.advance(ms);
  await w.t.services.store.flush();
}

/**
 * Runs `body` while the `lookup` index of a desk (`services.ticketing.tickets`, `.instances`, ...)
 * answers `records`, read earlier: as if another change landed while a request awaited.
 */
export async function withStaleLookup<T>(desk: object, lookup: 'ticketById' | 'instanceById' | 'sessionById', records: Map<string, unknown>, body: () => Promise<T>): Promise<T> {
  const indexes = (desk as { indexes: Record<string, () => unknown> }).indexes;
  const real = indexes[lookup];
  indexes[lookup] = () => records;
  try {
    return await body();
  } finally {
    indexes[lookup] = real!;
  }
}
