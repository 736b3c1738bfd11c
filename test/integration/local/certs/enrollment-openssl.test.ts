import * as assert from 'uvu/assert';
import type { TestApp } from '../../../../lib/testing.ts';
import { pkiSuite } from '../../../helpers/pki-suites.ts';
import { enrollmentApp, newEnrollmentToken, enrollWith } from '../../../unit/certs/cert-apps.ts';
import { describeCert, makeCsr, tamperCsr } from '../../../helpers/csr.ts';
import { ManualClock } from '../../../helpers/manual-clock.ts';

let t: TestApp;
let clock: ManualClock;
async function setUp(pki: 'fake' | 'openssl'): Promise<void> {
  clock = new ManualClock(Date.now());
  t = await enrollmentApp(pki, clock);
}

// Enrollment on the openssl CA, for what only it does with a CSR: checks its signature, signs it with
// the forced subject (the rest, on the fake PKI: test/unit/certs/enrollment.test.ts).
const o = pkiSuite('openssl', 'agent enrollment: POST /api/certs/agent/enroll and POST /api/enroll', setUp, () => t.close());

const newToken = (body?: Record<string, unknown>) => newEnrollmentToken(t, body);

const enroll = (token: string, csr: string, headers?: Record<string, string>) => enrollWith(t, token, csr, headers);

o('enroll signs CN=agent:<label> whatever the CSR asked, with the CA; the agent works at once with its capabilities', async () => {
  const { token } = await newToken({ allowedSites: ['blog'] });
  const { csr } = makeCsr('/CN=admin/O=evil');
  const r = await enroll(token, csr);
  assert.is(r.status, 200, JSON.stringify(r.body));
  const cert = describeCert(r.body.cert);
  assert.match(cert, 'subject=CN = agent:laptop-1');
  assert.not.match(cert, 'evil');
  assert.equal(Object.keys(r.body).sort(), ['caCert', 'cert', 'expiresAt', 'label', 'ok', 'serial']);
  assert.is(r.body.label, 'laptop-1');
  const ca = describeCert(r.body.caCert);
  assert.match(cert, ca.split('\n').find((l) => l.startsWith('subject='))!.replace('subject=', 'issuer='));
  const agent = t.services.identities.activeAgent('laptop-1');
  assert.equal([agent?.capabilities, agent?.allowedSites, agent?.serial], [['tunnels:read'], ['blog'], r.body.serial]);
  assert.is((await t.call('GET', '/api/tunnels', { as: { agent: 'laptop-1', serial: r.body.serial } })).status, 200);
});

o('a bad CSR is 400 and does not spend the token', async () => {
  const { token } = await newToken();
  for (const csr of ['not a csr', tamperCsr(makeCsr().csr), '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----']) {
    const r = await enroll(token, csr);
    assert.is(r.status, 400, csr);
    assert.is(r.body.error, 'Invalid certificate signing request');
  }
  assert.is((await enroll(token, makeCsr().csr)).status, 200);
});

o.run();
