import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainInput, domainProblem, localDomainProblem } from '../../../lib/onboarding/domain-rules.ts';
import { isFqdn } from '../../../lib/system/common/names.ts';

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

/** A valid name of exactly `length` characters: 60-character labels, then a shorter one, then `.com`. */
function domainOfLength(length: number): string {
  const labels: string[] = [];
  let left = length - '.com'.length;
  while (left > 0) {
    const size = Math.min(60, left - (labels.length > 0 ? 1 : 0));
    labels.push('a'.repeat(size));
    left -= size + (labels.length > 1 ? 1 : 0);
  }
  return `${labels.join('.')}.com`;
}

s('the longest accepted domain (246 characters) still has a valid tunnel. subdomain', () => {
  const longest = domainOfLength(246);
  assert.is(longest.length, 246);
  assert.is(domainProblem(longest), null);
  assert.ok(isFqdn(`tunnel.${longest}`));
  const tooLong = domainOfLength(247);
  assert.is(tooLong.length, 247);
  assert.ok(isFqdn(tooLong), 'a valid name, refused only for its length');
  assert.match(domainProblem(tooLong) ?? 'accepted', /at most 246 characters/);
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

s('names under .localhost: the sandbox takes them, a real host does not', () => {
  for (const d of ['relay.localhost', 'a.b.localhost']) {
    assert.is(localDomainProblem(d, true), null, d);
    assert.match(localDomainProblem(d, false) ?? 'accepted', /public domain name/, d);
  }
  for (const d of ['relay.example.com', 'localhost.example.com', 'mylocalhost.com']) assert.is(localDomainProblem(d, false), null, d);
});

s.run();
