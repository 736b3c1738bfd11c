import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestApp } from '../../../lib/testing.ts';
import { CHAT_SCOPE, addAgents, agent, assign, registerChatScope, registerInstance, ticketApp } from './fixtures.ts';

const s = suite<{ t: TestApp }>('tickets: scopes', {} as { t: TestApp });
s.before.each(async (ctx) => {
  ctx.t = (await ticketApp()).t;
});
s.after.each(async ({ t }) => t.close());

const register = (t: TestApp, body: unknown) => t.call('POST', '/api/tickets/scopes', { body });

s('POST /api/tickets/scopes: 201 {ok, registered: capability names}', async ({ t }) => {
  const { status, body } = await register(t, CHAT_SCOPE);
  assert.is(status, 201);
  assert.equal(body, { ok: true, registered: ['chat:send', 'chat:read'] });
});

s('registering adds the capability names to the valid capability set; deleting removes them', async ({ t }) => {
  assert.equal([...t.services.ticketing.capabilityNames()], []);
  await registerChatScope(t);
  assert.equal([...t.services.ticketing.capabilityNames()].sort(), ['chat:read', 'chat:send']);
  const { status, body } = await t.call('DELETE', '/api/tickets/scopes/chat');
  assert.is(status, 200);
  assert.equal(body, { ok: true, name: 'chat' });
  assert.equal([...t.services.ticketing.capabilityNames()], []);
});

s('409 when the scope name is already registered', async ({ t }) => {
  await registerChatScope(t);
  const { status, body } = await register(t, { ...CHAT_SCOPE, version: '2.0.0' });
  assert.is(status, 409);
  assert.equal(body, { error: 'Scope already registered' });
});

s('409 when another scope already declares one of the capabilities', async ({ t }) => {
  await registerChatScope(t);
  const { status } = await register(t, { ...CHAT_SCOPE, name: 'chat-two' });
  assert.is(status, 409);
});

s('name: lowercase alphanumeric with hyphens, 1 to 50 chars', async ({ t }) => {
  for (const name of ['', 'Chat', 'chat_room', 'chat room', 'chat.x', 'a'.repeat(51)]) {
    const { status, body } = await register(t, { ...CHAT_SCOPE, name });
    assert.is(status, 400, name);
    assert.is(body.error, 'Validation failed');
    assert.is(body.details.issues[0].path, 'name');
  }
  assert.is((await register(t, { ...CHAT_SCOPE, name: 'a'.repeat(50) })).status, 201);
});

s('reserved names are rejected (tunnels, plugins, health, tickets, ...)', async ({ t }) => {
  for (const name of ['tunnels', 'plugins', 'health', 'tickets', 'onboarding', 'sites', 'users', 'services', 'system', 'certs', 'invitations', 'settings', 'invite', 'enroll']) {
    const { status, body } = await register(t, { ...CHAT_SCOPE, name });
    assert.is(status, 400, name);
    assert.match(body.details.issues[0].message, 'reserved');
  }
});

// Portlama's reserved API prefixes (packages/panel-server/src/lib/constants.js): the spec leaves the list open and prefers its shape.
const PORTLAMA_RESERVED = ['health', 'onboarding', 'invite', 'enroll', 'tunnels', 'sites', 'system', 'services', 'logs', 'users', 'certs', 'invitations', 'plugins', 'tickets', 'settings', 'identity', 'storage', 'agents', 'user-access', 'gatekeeper'];

s("reserved names include Portlama's whole list, as scope names and as the scope part of a capability", async ({ t }) => {
  for (const name of PORTLAMA_RESERVED) {
    const { status, body } = await register(t, { ...CHAT_SCOPE, name, scopes: [{ name: `x${name}:go`, description: 'x', instanceScoped: true }] });
    assert.is(status, 400, name);
    assert.match(body.details.issues[0].message, 'reserved', name);
    const asCapability = await register(t, { ...CHAT_SCOPE, name: 'fine', scopes: [{ name: `${name}:go`, description: 'x', instanceScoped: true }] });
    assert.is(asCapability.status, 400, `${name}:go`);
  }
});

s('version 1 to 50 chars, description 1 to 500 chars', async ({ t }) => {
  for (const change of [{ version: '' }, { version: 'v'.repeat(51) }, { description: '' }, { description: 'd'.repeat(501) }]) {
    assert.is((await register(t, { ...CHAT_SCOPE, ...change })).status, 400, JSON.stringify(change).slice(0, 40));
  }
  assert.is((await register(t, { ...CHAT_SCOPE, version: 'v'.repeat(50), description: 'd'.repeat(500) })).status, 201);
});

s('scopes: 1 to 50 declarations, each scope:action with a description and instanceScoped', async ({ t }) => {
  const declaration = (i: number) => ({ name: `chat:action${i}`, description: 'x', instanceScoped: false });
  const bad = [
    [],
    Array.from({ length: 51 }, (_, i) => declaration(i)),
    [{ name: 'chatsend', description: 'x', instanceScoped: true }],
    [{ name: 'chat:send:extra', description: 'x', instanceScoped: true }],
    [{ name: 'chat:send', instanceScoped: true }],
    [{ name: 'chat:send', description: 'x' }],
    [{ name: 'tunnels:write', description: 'x', instanceScoped: true }],
    [declaration(1), declaration(1)],
  ];
  for (const scopes of bad) assert.is((await register(t, { ...CHAT_SCOPE, scopes })).status, 400, JSON.stringify(scopes).slice(0, 60));
  const { status, body } = await register(t, { ...CHAT_SCOPE, scopes: Array.from({ length: 50 }, (_, i) => declaration(i)) });
  assert.is(status, 201);
  assert.is(body.registered.length, 50);
});

s('transport: strategies tunnel/relay/direct, port 0 or 1024-65535, protocol wss or tcp', async ({ t }) => {
  const transport = CHAT_SCOPE.transport;
  const bad = [
    { ...transport, strategies: ['carrier-pigeon'] },
    { ...transport, strategies: [] },
    { ...transport, preferred: 'direct', strategies: ['relay'] },
    { ...transport, port: 80 },
    { ...transport, port: 65536 },
    { ...transport, port: 1023 },
    { ...transport, protocol: 'http' },
    { strategies: ['relay'], preferred: 'relay', port: 0 },
    { strategies: ['relay'], port: 0, protocol: 'wss' },
  ];
  for (const candidate of bad) assert.is((await register(t, { ...CHAT_SCOPE, transport: candidate })).status, 400, JSON.stringify(candidate));
  for (const [i, port] of [0, 1024, 65535].entries()) {
    const body = { ...CHAT_SCOPE, name: `ok-${i}`, scopes: [{ name: `ok-${i}:go`, description: 'x', instanceScoped: true }], transport: { ...transport, port, protocol: 'tcp' } };
    assert.is((await register(t, body)).status, 201, String(port));
  }
});

s('GET /api/tickets/scopes: 200 {scopes, instances, assignments}', async ({ t }) => {
  await addAgents(t, ['alice', 'bob']);
  await registerChatScope(t);
  const { instanceId, instanceScope } = await registerInstance(t);
  await assign(t, 'bob', instanceScope);
  const { status, body } = await t.call('GET', '/api/tickets/scopes');
  assert.is(status, 200);
  assert.equal(Object.keys(body).sort(), ['assignments', 'instances', 'scopes']);
  assert.is(body.scopes[0].name, 'chat');
  assert.equal(body.scopes[0].transport, CHAT_SCOPE.transport);
  const [instance] = body.instances;
  assert.equal(Object.keys(instance).sort(), ['agentLabel', 'instanceId', 'instanceScope', 'lastHeartbeat', 'registeredAt', 'scope', 'status', 'transport']);
  assert.equal([instance.instanceId, instance.instanceScope, instance.scope, instance.agentLabel, instance.status], [instanceId, `chat:send:${instanceId}`, 'chat:send', 'alice', 'active']);
  assert.equal(body.assignments.map((a: { agentLabel: string }) => a.agentLabel), ['bob']);
});

s('DELETE /api/tickets/scopes/:name: 404 Scope not found', async ({ t }) => {
  const { status, body } = await t.call('DELETE', '/api/tickets/scopes/nope');
  assert.is(status, 404);
  assert.equal(body, { error: 'Scope not found' });
});

s('DELETE of a name too long to register is 404 Scope not found, not a validation failure', async ({ t }) => {
  const { status, body } = await t.call('DELETE', `/api/tickets/scopes/${'a'.repeat(51)}`);
  assert.equal([status, body], [404, { error: 'Scope not found' }]);
});

/** Makes every write of the collection fail, as a full or read-only disk would. */
function failWrites(collection: { edit: unknown }): () => void {
  const real = collection.edit;
  collection.edit = () => Promise.reject(new Error('EROFS: read-only file system'));
  return () => void (collection.edit = real);
}

s('500 Internal server error when registering or deleting cannot be written', async ({ t }) => {
  const { ticketScopes } = t.services.store;
  let restore = failWrites(ticketScopes);
  const failed = await register(t, CHAT_SCOPE);
  restore();
  assert.equal([failed.status, failed.body], [500, { error: 'Internal server error' }]);
  assert.equal(ticketScopes.value, []);
  await registerChatScope(t);
  restore = failWrites(ticketScopes);
  const deleting = await t.call('DELETE', '/api/tickets/scopes/chat');
  restore();
  assert.equal([deleting.status, deleting.body], [500, { error: 'Internal server error' }]);
  assert.equal([...t.services.ticketing.capabilityNames()].sort(), ['chat:read', 'chat:send']);
});

s('deleting a scope removes the instances of its capabilities and their assignments', async ({ t }) => {
  await addAgents(t, ['alice', 'bob']);
  await registerChatScope(t);
  const { instanceScope } = await registerInstance(t);
  await assign(t, 'bob', instanceScope);
  assert.is((await t.call('DELETE', '/api/tickets/scopes/chat')).status, 200);
  const { body } = await t.call('GET', '/api/tickets/scopes');
  assert.equal(body, { scopes: [], instances: [], assignments: [] });
});

s('scope management is admin only: agents get 403 Insufficient certificate scope', async ({ t }) => {
  await addAgents(t, ['alice'], ['chat:send', 'tunnels:write']);
  for (const [method, path] of [['POST', '/api/tickets/scopes'], ['GET', '/api/tickets/scopes'], ['DELETE', '/api/tickets/scopes/chat']] as const) {
    const { status, body } = await t.call(method, path, { as: agent('alice'), body: method === 'POST' ? CHAT_SCOPE : undefined });
    assert.is(status, 403, `${method} ${path}`);
    assert.equal(body, { error: 'Insufficient certificate scope' });
  }
});

s.run();
