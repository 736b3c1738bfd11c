import { execFileSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { sandboxControls } from '../../../../lib/system/sandbox-system.ts';
import type { TestApp } from '../../../../lib/testing.ts';
import { pkiSuite } from '../../../helpers/pki-suites.ts';
import { agentCertApp, issueAgent } from '../../../unit/certs/cert-apps.ts';

let t: TestApp;
const setUp = async (pki: 'fake' | 'openssl') => void (t = await agentCertApp(pki));

// Agent certificates on the openssl CA, for what only it makes: the P12's contents, the CRL's serials
// (the rest, on the fake PKI: test/unit/certs/agents.test.ts).
const o = pkiSuite('openssl', 'agent certificates: /api/certs/agent', setUp, () => t.close());

const issue = (label: string, capabilities?: string[], allowedSites?: string[]) => issueAgent(t, label, capabilities, allowedSites);

const asAgent = (label: string, serial: string) => ({ as: { agent: label, serial } });

o('POST issues CN=agent:<label>, returns the one-time password; the P12 opens with it and holds that certificate', async () => {
  const created = await issue('laptop-1', ['tunnels:read', 'system:read'], ['blog']);
  assert.is(created.label, 'laptop-1');
  assert.match(created.serial, /^[0-9A-F]+$/);
  assert.ok(Date.parse(created.expiresAt) > Date.now() + 800 * 86_400_000);
  assert.ok(created.p12Password.length >= 20);
  const p12 = await t.request('GET', '/api/certs/agent/laptop-1/download');
  assert.is(p12.status, 200);
  assert.is(p12.headers.get('content-type'), 'application/x-pkcs12');
  assert.is(p12.headers.get('content-disposition'), 'attachment; filename="laptop-1.p12"');
  const pem = execFileSync('openssl', ['pkcs12', '-nokeys', '-clcerts', '-passin', 'env:P'], {
    input: Buffer.from(await p12.arrayBuffer()),
    env: { ...process.env, P: created.p12Password },
  }).toString();
  const subject = execFileSync('openssl', ['x509', '-noout', '-subject', '-serial'], { input: pem }).toString();
  assert.match(subject, 'CN = agent:laptop-1');
  assert.match(subject, `serial=${created.serial}`);
  const file = join(t.services.store.dataDir, 'certs', 'agents', 'laptop-1.p12');
  assert.is((await stat(file)).mode & 0o777, 0o600);
  assert.is((await stat(join(t.services.store.dataDir, 'certs'))).mode & 0o777, 0o700);
});

o('DELETE revokes: next request 403 revoked, CRL lists the serial, proxy reloaded, listing says revoked, P12 gone', async () => {
  const created = await issue('laptop-1');
  const reloadsBefore = sandboxControls(t.services.system).eventsOf('proxy.reload').length;
  const r = await t.call('DELETE', '/api/certs/agent/laptop-1');
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.serial, created.serial);
  const denied = await t.call('GET', '/api/tunnels', asAgent('laptop-1', created.serial));
  assert.is(denied.status, 403);
  assert.is(denied.body.error, 'Certificate has been revoked');
  assert.is(sandboxControls(t.services.system).eventsOf('proxy.reload').length, reloadsBefore + 1);
  const { crlPath } = await t.services.system.pki.ensureCa();
  const crl = execFileSync('openssl', ['crl', '-in', crlPath, '-noout', '-text']).toString();
  assert.match(crl, `Serial Number: ${created.serial}`);
  assert.is((await t.call('GET', '/api/certs/agent')).body.agents[0].revoked, true);
  assert.is((await t.call('GET', '/api/certs/agent/laptop-1/download')).status, 404);
  assert.is((await t.call('DELETE', '/api/certs/agent/laptop-1')).status, 404);
});

o('a removed agent\'s serial stays on the CA\'s CRL; a re-issued label keeps its active record', async () => {
  const first = await issue('laptop-1');
  await t.call('DELETE', '/api/certs/agent/laptop-1');
  const second = await issue('laptop-1');
  const removed = await t.call('DELETE', '/api/certs/agent/laptop-1/record');
  assert.equal(removed.body.serials, [first.serial], 'only the revoked record');
  assert.equal((await t.call('GET', '/api/certs/agent')).body.agents.map((a: { serial: string }) => a.serial), [second.serial]);
  const { crlPath } = await t.services.system.pki.ensureCa();
  assert.match(execFileSync('openssl', ['crl', '-in', crlPath, '-noout', '-text']).toString(), `Serial Number: ${first.serial}`);
  assert.is((await t.call('GET', '/api/tunnels', asAgent('laptop-1', first.serial))).body.error, 'Certificate has been revoked');
  assert.is((await t.call('GET', '/api/tunnels', asAgent('laptop-1', second.serial))).status, 200);
});

o('a failure after the certificate is signed leaves no record and revokes the orphan', async () => {
  sandboxControls(t.services.system).failNext('pki.toPkcs12');
  const r = await t.call('POST', '/api/certs/agent', { body: { label: 'laptop-1' } });
  assert.is(r.status, 500);
  assert.equal(t.services.store.agents.value, []);
  const { crlPath } = await t.services.system.pki.ensureCa();
  assert.match(execFileSync('openssl', ['crl', '-in', crlPath, '-noout', '-text']).toString(), 'Serial Number');
  await issue('laptop-1');
});

o.run();
