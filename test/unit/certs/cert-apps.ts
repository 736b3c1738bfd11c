import * as assert from 'uvu/assert';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import type { ManualClock } from '../../helpers/manual-clock.ts';
import { seedSites } from '../../helpers/sites.ts';

// The apps and calls the certificate suites share, on the fake PKI here and on the openssl CA in
// test/integration/local/certs (what only openssl makes: PKCS#12 contents, CRLs, CSR signatures).

type Pki = 'fake' | 'openssl';

/** An onboarded app on disk with the sites `blog` and `docs`. */
export async function agentCertApp(pki: Pki): Promise<TestApp> {
  const t = await createTestApp({ durable: true, pki });
  await t.completeOnboarding();
  await seedSites(t, 'blog', 'docs');
  return t;
}

export async function issueAgent(t: TestApp, label: string, capabilities: string[] = ['tunnels:read'], allowedSites: string[] = []) {
  const r = await t.call('POST', '/api/certs/agent', { body: { label, capabilities, allowedSites } });
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body as { ok: true; label: string; serial: string; expiresAt: string; p12Password: string };
}

/** An onboarded app on `clock`, on disk (the cases check the documents' files and modes), with the site `blog`. */
export async function enrollmentApp(pki: Pki, clock: ManualClock): Promise<TestApp> {
  const t = await createTestApp({ clock, pki, durable: true });
  await t.completeOnboarding();
  await seedSites(t, 'blog');
  return t;
}

export async function newEnrollmentToken(t: TestApp, body: Record<string, unknown> = {}): Promise<{ token: string; label: string; expiresAt: string }> {
  const r = await t.call('POST', '/api/certs/agent/enroll', { body: { label: 'laptop-1', capabilities: ['tunnels:read'], ...body } });
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

export const enrollWith = (t: TestApp, token: string, csr: string, headers?: Record<string, string>) =>
  t.call('POST', '/api/enroll', { as: 'none', body: { token, csr }, headers });
