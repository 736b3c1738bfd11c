import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainInput, domainProblem, MAX_DOMAIN_LENGTH } from '../../../lib/onboarding/domain-rules.ts';

const s = suite('onboarding domain rules');

s('bare FQDNs pass', () => {
  for (const d of ['example.com', 'relay.example.co.uk', 'a-b.example', 'xn--bcher-kva.example']) assert.is(domainProblem(d), null, d);
});

s('each rejected form gets its own reason', () => {
  const cases: Array<[string, RegExp]> = [
    ['https://example.com', /scheme/],
    ['http://example.com/x', /scheme/],
    ['example.com/admin', /path/],
    ['example.com?x=1', /path/],
    ['*.example.com', /wildcard/],
    ['example.com:8443', /port/],
    ['example.com.', /dot/],
    ['203.0.113.7', /IP address/],
    ['localhost', /fully qualified/],
    ['-bad.example.com', /fully qualified/],
    ['exa_mple.com', /fully qualified/],
    [`${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.com`, /at most/],
  ];
  for (const [input, reason] of cases) assert.match(domainProblem(input) ?? 'accepted', reason, input);
});

s('the longest accepted domain still has a valid tunnel. subdomain', () => {
  assert.is(MAX_DOMAIN_LENGTH, 246);
});

s('the schema trims and lowercases the domain and checks the email', () => {
  const ok = DomainInput.safeParse({ domain: '  Relay.Example.COM ', email: 'ops@example.com' });
  assert.ok(ok.success);
  assert.equal(ok.data, { domain: 'relay.example.com', email: 'ops@example.com' });
  const bad = DomainInput.safeParse({ domain: 'example.com', email: 'not-an-email' });
  assert.not.ok(bad.success);
  assert.equal(bad.error!.issues.map((i) => [i.path.join('.'), i.message]), [['email', 'must be a valid email address']]);
  assert.not.ok(DomainInput.safeParse({ email: 'ops@example.com' }).success);
});

s.run();
