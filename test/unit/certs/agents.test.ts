import { storedText } from '../../helpers/store-files.ts';
import * as assert from 'uvu/assert';
import { sandboxControls } from '../../../lib/system/sandbox-system.ts';
import type { TestApp } from '../../../lib/testing.ts';
import { pkiSuite } from '../../helpers/pki-suites.ts';
import { agentCertApp, issueAgent } from './cert-apps.ts';
import { CHAT_SCOPE } from '../tickets/fixtures.ts';

let t: TestApp;
const setUp = async (pki: 'fake' | 'openssl') => void (t = await agentCertApp(pki));

// on the fake PKI; what only the openssl CA makes (the P12's contents, the CRL's serials):
// test/integration/local/certs/agents-openssl.test.ts
const s = pkiSuite('fake', 'agent certificates: /api/certs/agent', setUp, () => t.close());

const issue = (label: string, capabilities?: string[], allowedSites?: string[]) => issueAgent(t, label, capabilities, allowedSites);

const asAgent = (label: string, serial: string) => ({ as: { agent: label, serial } });

s('GET lists label, serial, capabilities, allowedSites, createdAt, expiresAt, revoked and never a password', async () => {
  const created = await issue('laptop-1', ['tunnels:read'], ['blog']);
  const r = await t.call('GET', '/api/certs/agent');
  assert.is(r.status, 200);
  assert.is(r.body.agents.length, 1);
  const [agent] = r.body.agents;
  assert.equal(
    { label: agent.label, serial: agent.serial, capabilities: agent.capabilities, allowedSites: agent.allowedSites, revoked: agent.revoked },
    { label: 'laptop-1', serial: created.serial, capabilities: ['tunnels:read'], allowedSites: ['blog'], revoked: false },
  );
  assert.ok(agent.createdAt && agent.expiresAt);
  assert.not.match(JSON.stringify(r.body), created.p12Password);
  assert.not.match(await storedText(t.services.store.agents), created.p12Password);
  assert.not.ok(t.services.log.recent(500).some((e) => e.message.includes(created.p12Password)));
});

s('the issued certificate carries its capabilities on the very next request; another serial for the label gets none', async () => {
  const created = await issue('laptop-1', ['tunnels:read']);
  assert.is((await t.call('GET', '/api/tunnels', asAgent('laptop-1', created.serial))).status, 200);
  const stale = await t.call('GET', '/api/tunnels', asAgent('laptop-1', 'ABCDEF'));
  assert.is(stale.status, 403);
  assert.is(stale.body.error, 'Insufficient certificate capability');
});

s('a superseded certificate (the label re-registered with another serial) may not act for its label', async () => {
  const created = await issue('laptop-1', ['tunnels:read']);
  assert.is((await t.call('GET', '/api/tickets/inbox', asAgent('laptop-1', created.serial))).status, 200);
  await t.services.store.agents.update((agents) => void (agents[0]!.serial = 'BEEF'));
  const old = await t.call('GET', '/api/tunnels', asAgent('laptop-1', created.serial));
  assert.equal([old.status, old.body], [403, { error: 'Insufficient certificate capability' }]);
  // a label route outside the tickets refuses it too (it would read its label's push-install status)
  const status = await t.call('GET', '/api/plugins/push-install/agent-status', asAgent('laptop-1', created.serial));
  assert.equal([status.status, status.body], [403, { error: 'Insufficient certificate capability' }]);
  // a ticket route answers it generically (tickets.md), as a caller with no tickets
  const inbox = await t.call('GET', '/api/tickets/inbox', asAgent('laptop-1', created.serial));
  assert.equal([inbox.status, inbox.body], [200, { tickets: [] }]);
  assert.is((await t.call('GET', '/api/tunnels', asAgent('laptop-1', 'BEEF'))).status, 200);
});

s('PATCH capabilities applies at once: a removed capability answers 403 on the next request', async () => {
  const created = await issue('laptop-1', ['tunnels:read', 'system:read']);
  const r = await t.call('PATCH', '/api/certs/agent/laptop-1/capabilities', { body: { capabilities: ['system:read'] } });
  assert.is(r.status, 200);
  assert.equal(r.body, { ok: true, label: 'laptop-1', capabilities: ['system:read'] });
  const denied = await t.call('GET', '/api/tunnels', asAgent('laptop-1', created.serial));
  assert.is(denied.status, 403);
  assert.is(denied.body.error, 'Insufficient certificate capability');
  await t.call('PATCH', '/api/certs/agent/laptop-1/capabilities', { body: { capabilities: ['tunnels:read'] } });
  assert.is((await t.call('GET', '/api/tunnels', asAgent('laptop-1', created.serial))).status, 200);
});

s('capabilities are checked against the live set: unknown 400 naming it; a ticket scope\'s capability once registered', async () => {
  const unknown = await t.call('POST', '/api/certs/agent', { body: { label: 'x', capabilities: ['tunnels:read', 'chat:send'] } });
  assert.is(unknown.status, 400);
  assert.is(unknown.body.error, "Unknown capability 'chat:send'");
  assert.equal((await t.call('GET', '/api/certs/agent')).body.agents, [], 'nothing issued');
  assert.is((await t.call('POST', '/api/tickets/scopes', { body: CHAT_SCOPE })).status, 201);
  await issue('x', ['tunnels:read', 'chat:send']);
  const patch = await t.call('PATCH', '/api/certs/agent/x/capabilities', { body: { capabilities: ['nope:nope'] } });
  assert.is(patch.status, 400);
  assert.is(patch.body.error, "Unknown capability 'nope:nope'");
});

s('PATCH allowed-sites replaces the list; invalid names 400; unknown label 404', async () => {
  await issue('laptop-1');
  const r = await t.call('PATCH', '/api/certs/agent/laptop-1/allowed-sites', { body: { allowedSites: ['blog', 'docs', 'blog'] } });
  assert.equal(r.body, { ok: true, label: 'laptop-1', allowedSites: ['blog', 'docs'] });
  assert.equal(t.services.identities.activeAgent('laptop-1')?.allowedSites, ['blog', 'docs']);
  assert.is((await t.call('PATCH', '/api/certs/agent/laptop-1/allowed-sites', { body: { allowedSites: ['Bad Name'] } })).status, 400);
  const unknown = await t.call('PATCH', '/api/certs/agent/laptop-1/allowed-sites', { body: { allowedSites: ['blog', 'nosuch'] } });
  assert.equal([unknown.status, unknown.body.error], [400, "Unknown site 'nosuch'"]);
  assert.equal(t.services.identities.activeAgent('laptop-1')?.allowedSites, ['blog', 'docs'], 'unchanged');
  const created = await t.call('POST', '/api/certs/agent', { body: { label: 'laptop-2', capabilities: [], allowedSites: ['nosuch'] } });
  assert.equal([created.status, created.body.error], [400, "Unknown site 'nosuch'"]);
  const missing = await t.call('PATCH', '/api/certs/agent/ghost/allowed-sites', { body: { allowedSites: [] } });
  assert.is(missing.status, 404);
  assert.is(missing.body.error, 'Agent certificate "ghost" not found');
});

s('PATCH /api/certs/agent/:label changes both lists all or nothing: any unknown value leaves both as they were', async () => {
  await issue('laptop-1', ['tunnels:read'], ['blog']);
  const stored = async () => {
    const [a] = (await t.call('GET', '/api/certs/agent')).body.agents;
    return { capabilities: a.capabilities, allowedSites: a.allowedSites };
  };
  const before = { capabilities: ['tunnels:read'], allowedSites: ['blog'] };
  const site = await t.call('PATCH', '/api/certs/agent/laptop-1', { body: { capabilities: ['tunnels:read', 'system:read'], allowedSites: ['docs', 'no-such-site'] } });
  assert.equal([site.status, site.body.error], [400, "Unknown site 'no-such-site'"]);
  assert.equal(await stored(), before, 'the valid capability was not granted');
  const capability = await t.call('PATCH', '/api/certs/agent/laptop-1', { body: { capabilities: ['system:read', 'nope:nope'], allowedSites: ['docs'] } });
  assert.equal([capability.status, capability.body.error], [400, "Unknown capability 'nope:nope'"]);
  assert.equal(await stored(), before, 'the valid site was not granted');
  assert.equal(t.services.identities.activeAgent('laptop-1')?.capabilities, ['tunnels:read']);
  const saved = await t.call('PATCH', '/api/certs/agent/laptop-1', { body: { capabilities: ['tunnels:read', 'system:read'], allowedSites: ['docs', 'blog', 'docs'] } });
  assert.equal([saved.status, saved.body], [200, { ok: true, label: 'laptop-1', capabilities: ['tunnels:read', 'system:read'], allowedSites: ['docs', 'blog'] }]);
  const onlySites = await t.call('PATCH', '/api/certs/agent/laptop-1', { body: { allowedSites: [] } });
  assert.equal(onlySites.body, { ok: true, label: 'laptop-1', capabilities: ['tunnels:read', 'system:read'], allowedSites: [] }, 'a list left out is kept');
  const missing = await t.call('PATCH', '/api/certs/agent/ghost', { body: { capabilities: [] } });
  assert.equal([missing.status, missing.body.error], [404, 'Agent certificate "ghost" not found']);
});

s('labels: lowercase [a-z0-9-], at most 58 so that CN=agent:<label> fits X.509; an existing label 409', async () => {
  for (const label of ['', 'Upper', 'under_score', 'a'.repeat(59), 'a'.repeat(101), '../x']) {
    const r = await t.call('POST', '/api/certs/agent', { body: { label } });
    assert.is(r.status, 400, label);
    assert.is(r.body.error, 'Validation failed');
  }
  await issue('a'.repeat(58));
  await issue('laptop-1');
  const again = await t.call('POST', '/api/certs/agent', { body: { label: 'laptop-1' } });
  assert.is(again.status, 409);
  assert.is(again.body.error, "Agent certificate 'laptop-1' already exists");
});

s('20 concurrent POSTs with one label give exactly one 201', async () => {
  const results = await Promise.all(Array.from({ length: 20 }, () => t.call('POST', '/api/certs/agent', { body: { label: 'race' } })));
  const statuses = results.map((r) => r.status).sort();
  assert.equal(statuses.filter((x) => x === 201).length, 1, JSON.stringify(statuses));
  assert.ok(statuses.every((x) => x === 201 || x === 409));
  assert.is(t.services.store.agents.value.filter((a) => a.label === 'race').length, 1);
});

s('a failing CA or reload step answers 500, and the app refuses the certificate anyway', async () => {
  const created = await issue('laptop-1');
  sandboxControls(t.services.system).failNext('proxy.reload', 'nginx: reload failed');
  const r = await t.call('DELETE', '/api/certs/agent/laptop-1');
  assert.equal([r.status, r.body], [500, { error: 'Certificate revocation failed', details: 'Proxy update failed: nginx: reload failed' }]);
  assert.is((await t.call('GET', '/api/tunnels', asAgent('laptop-1', created.serial))).body.error, 'Certificate has been revoked');
});

s('a revoked label can be issued again; the old certificate stays refused', async () => {
  const first = await issue('laptop-1');
  await t.call('DELETE', '/api/certs/agent/laptop-1');
  const second = await issue('laptop-1');
  assert.is.not(second.serial, first.serial);
  assert.is((await t.call('GET', '/api/tunnels', asAgent('laptop-1', second.serial))).status, 200);
  assert.is((await t.call('GET', '/api/tunnels', asAgent('laptop-1', first.serial))).body.error, 'Certificate has been revoked');
});

s('DELETE /api/certs/agent/:label/record: an active agent 409, a revoked one leaves the list and its certificate stays refused', async () => {
  const created = await issue('laptop-1');
  const active = await t.call('DELETE', '/api/certs/agent/laptop-1/record');
  assert.equal([active.status, active.body], [409, { error: "Agent certificate 'laptop-1' is active: revoke it before removing it" }]);
  assert.is((await t.call('GET', '/api/tunnels', asAgent('laptop-1', created.serial))).status, 200, 'still active');
  assert.is((await t.call('DELETE', '/api/certs/agent/laptop-1')).status, 200);
  const removed = await t.call('DELETE', '/api/certs/agent/laptop-1/record');
  assert.equal([removed.status, removed.body], [200, { ok: true, label: 'laptop-1', serials: [created.serial] }]);
  assert.equal((await t.call('GET', '/api/certs/agent')).body.agents, []);
  const refused = await t.call('GET', '/api/tunnels', asAgent('laptop-1', created.serial));
  assert.equal([refused.status, refused.body.error], [403, 'Certificate has been revoked']);
  assert.ok(t.services.store.revocations.value.some((r) => r.serial === created.serial), 'still on the revocation list');
  const again = await t.call('DELETE', '/api/certs/agent/laptop-1/record');
  assert.equal([again.status, again.body.error], [404, 'Agent certificate "laptop-1" not found']);
});

s('removing a revoked record whose serial never reached the revocation list puts it there first', async () => {
  const created = await issue('laptop-1');
  // a record marked revoked by hand (or a revocation whose later steps never ran)
  await t.services.store.agents.update((agents) => void (agents[0]!.revokedAt = new Date().toISOString()));
  assert.not.ok(t.services.store.revocations.value.some((r) => r.serial === created.serial));
  assert.is((await t.call('DELETE', '/api/certs/agent/laptop-1/record')).status, 200);
  assert.ok(t.services.store.revocations.value.some((r) => r.serial === created.serial));
  assert.is((await t.call('GET', '/api/tunnels', asAgent('laptop-1', created.serial))).body.error, 'Certificate has been revoked');
});

s('every /api/certs/agent route is admin-only', async () => {
  const created = await issue('laptop-1', ['tunnels:read', 'tunnels:write']);
  const as = asAgent('laptop-1', created.serial);
  for (const [method, path, body] of [
    ['GET', '/api/certs/agent'], ['POST', '/api/certs/agent', { label: 'x' }], ['POST', '/api/certs/agent/enroll', { label: 'x' }],
    ['GET', '/api/certs/agent/laptop-1/download'], ['DELETE', '/api/certs/agent/laptop-1'],
    ['PATCH', '/api/certs/agent/laptop-1/capabilities', { capabilities: [] }], ['PATCH', '/api/certs/agent/laptop-1/allowed-sites', { allowedSites: [] }],
    ['PATCH', '/api/certs/agent/laptop-1', { allowedSites: [] }], ['DELETE', '/api/certs/agent/laptop-1/record'],
  ] as const) {
    const r = await t.call(method, path, { ...as, body });
    assert.is(r.status, 403, `${method} ${path}`);
    assert.is(r.body.error, 'Insufficient certificate scope');
  }
});

s.run();
