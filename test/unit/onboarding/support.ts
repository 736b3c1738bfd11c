// Shared steps of the onboarding tests: walking the states over HTTP and waiting for a run.
import bcrypt from 'bcryptjs';
import type { StreamMessage } from '../../../lib/onboarding/events.ts';
import type { OnboardingOptions } from '../../../lib/onboarding/service.ts';
import { sandboxControls } from '../../../lib/system/index.ts';
import type { TestApp } from '../../../lib/testing.ts';
import { deferred } from '../../helpers/deferred.ts';

export const DOMAIN = 'relay.example.test';
export const EMAIL = 'ops@example.test';
export const HOST_IP = '203.0.113.10'; // createTestApp's config ip

/**
 * bcryptjs at cost 12 takes about a second per hash; suites that provision many times hash at
 * cost 4 (test/integration/local/users/real-cost.test.ts checks the real cost). Task 5's second look comes after 10 ms instead of 500.
 */
export const CHEAP_ONBOARDING: OnboardingOptions = {
  hashPassword: (p) => bcrypt.hash(p, 4),
  serviceCheck: { attempts: 20, delayMs: 10 },
};

/** FRESH -> DOMAIN_SET -> DNS_READY over HTTP, asserting each step answered 200. */
export async function walkToDnsReady(t: TestApp, domain = DOMAIN): Promise<void> {
  const set = await t.call('POST', '/api/onboarding/domain', { body: { domain, email: EMAIL } });
  if (set.status !== 200) throw new Error(`domain: ${set.status} ${JSON.stringify(set.body)}`);
  const dns = await t.call('POST', '/api/onboarding/verify-dns');
  if (dns.status !== 200) throw new Error(`verify-dns: ${dns.status} ${JSON.stringify(dns.body)}`);
}

/** The next terminal event of the shared stream (complete or error). Subscribe before starting. */
export function nextOutcome(t: TestApp): Promise<StreamMessage> {
  return new Promise((resolve) => {
    const off = t.services.onboarding.board.subscribe((m) => {
      if (m.type === 'complete' || m.type === 'error') {
        off();
        resolve(m);
      }
    });
  });
}

/** POST provision and wait for the run to end; the 202 body and the terminal event. */
export async function provisionAndWait(t: TestApp): Promise<{ status: number; body: any; outcome: StreamMessage }> {
  const outcome = nextOutcome(t);
  const { status, body } = await t.call('POST', '/api/onboarding/provision');
  if (status !== 202) throw new Error(`provision: ${status} ${JSON.stringify(body)}`);
  return { status, body, outcome: await outcome };
}

export const sandbox = (t: TestApp) => sandboxControls(t.services.system);

/** Holds every certificate request (task 3) until `release()`; `entered` resolves at the first. */
export function holdCertificates(t: TestApp): { entered: Promise<void>; release(): void } {
  const entered = deferred();
  const released = deferred();
  const certs = t.services.system.certs;
  const issue = certs.issue;
  certs.issue = async (fqdn, email) => {
    entered.resolve();
    await released.promise;
    return issue(fqdn, email);
  };
  return { entered: entered.promise, release: () => released.resolve() };
}
