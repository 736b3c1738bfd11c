import { readdir, readFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import ticketScopesRegister from '../../../handlers/tickets/scopes/create.ts';
import tunnelsList from '../../../handlers/tunnels/list.ts';
import { createTestApp } from '../../../lib/testing.ts';
import { CHAT_SCOPE } from '../tickets/fixtures.ts';

const s = suite('testing kit');

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a rejection');
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

s('state stays in memory: answered writes leave no file behind', async () => {
  const kit = await createTestApp({ routes: [ticketScopesRegister], seed: { onboarded: true } });
  try {
    const r = await kit.fetch('/api/tickets/scopes', { method: 'POST', headers: { ...kit.as.admin(), 'content-type': 'application/json' }, body: JSON.stringify(CHAT_SCOPE) });
    assert.is(r.status, 201);
    assert.is(kit.services.store.ticketScopes.value.length, 1);
    assert.equal(await filesUnder(kit.dir), []);
  } finally {
    await kit.close();
  }
});

s('the fake PKI needs no openssl: serials from 1000 upward, revocation, CA paths for the vhosts', async () => {
  const kit = await createTestApp({ config: { system: { binaries: { openssl: '/nonexistent/openssl' } } } });
  try {
    const pki = kit.pki!;
    const admin = await pki.issueClientCert('admin');
    const agent = await pki.issueClientCert('agent:laptop-1');
    assert.equal([admin.serial, agent.serial], ['1000', '1001']);
    assert.match(agent.certPem, 'BEGIN FAKE CERTIFICATE');
    await kit.services.system.pki.revoke(agent.serial);
    await kit.services.system.pki.revoke(agent.serial);
    assert.equal(pki.revokedSerials(), ['1001']);
    assert.is(await failure(kit.services.system.pki.revoke('ABCD')), 'No certificate with serial ABCD');
    assert.is(await failure(pki.issueClientCert('root')), "Invalid certificate common name 'root'");
    assert.ok((await kit.services.system.pki.ensureCa()).caPath.startsWith(kit.dir));
  } finally {
    await kit.close();
  }
});

s('routes that issue certificates work without openssl: a tunnel\'s server certificate, an agent certificate, an admin rotation', async () => {
  const kit = await createTestApp({ seed: { onboarded: true }, config: { system: { binaries: { openssl: '/nonexistent/openssl' } } } });
  try {
    const post = (path: string, body?: unknown) =>
      kit.fetch(path, { method: 'POST', headers: { ...kit.as.admin(), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    assert.is((await post('/api/tunnels', { subdomain: 'app', port: 8080 })).status, 201);
    const agent = await post('/api/certs/agent', { label: 'laptop-1', capabilities: ['tunnels:read'] });
    assert.is(agent.status, 201);
    const issued = await agent.json();
    assert.ok(Date.parse(issued.expiresAt) > Date.now() + 800 * 86_400_000, issued.expiresAt);
    const rotated = await post('/api/certs/mtls/rotate');
    assert.is(rotated.status, 200);
    const listing = await (await kit.fetch('/api/certs', { headers: kit.as.admin() })).json();
    assert.equal(listing.certs.map((c: { name: string; daysLeft: number }) => [c.name, c.daysLeft]), [['app.example.test', 89]]);
    assert.is(listing.adminCertificate.expiresAt, (await rotated.json()).expiresAt);
    assert.match(await readFile(kit.services.system.certs.paths('app.example.test').fullchain, 'utf8'), 'BEGIN FAKE CERTIFICATE');
  } finally {
    await kit.close();
  }
});

s('as.agent registers the agent with its capabilities; without them it only names the certificate', async () => {
  const kit = await createTestApp({ routes: [tunnelsList], seed: { onboarded: true, agents: [{ label: 'seeded', capabilities: ['tunnels:read'] }] } });
  try {
    assert.is((await kit.fetch('/api/tunnels', { headers: kit.as.agent('seeded') })).status, 200);
    assert.is((await kit.fetch('/api/tunnels', { headers: kit.as.agent('stranger') })).status, 403, 'not in the registry: no capabilities');
    assert.is((await kit.fetch('/api/tunnels', { headers: kit.as.agent('reader', ['tunnels:read']) })).status, 200);
    assert.is((await kit.fetch('/api/tunnels', { headers: kit.as.agent('reader', []) })).status, 403, 're-registered without it');
    assert.is((await kit.fetch('/api/tunnels', { headers: kit.as.admin() })).status, 200);
    assert.equal(await (await kit.fetch('/api/tunnels', { headers: kit.as.none() })).json(), { error: 'mTLS certificate required' });
    const agents = kit.services.store.agents.value;
    assert.equal(agents.map((a) => [a.label, a.serial, a.capabilities]), [['seeded', '2000', ['tunnels:read']], ['reader', '2002', []]]);
  } finally {
    await kit.close();
  }
});

s('without the onboarded seed, management routes answer 503 as on a fresh box', async () => {
  const kit = await createTestApp({ routes: [tunnelsList] });
  try {
    assert.is((await kit.fetch('/api/tunnels', { headers: kit.as.admin() })).status, 503);
  } finally {
    await kit.close();
  }
});

s.run();
