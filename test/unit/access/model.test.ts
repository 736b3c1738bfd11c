// The access model: path patterns the portal (Go RE2) can compile, networks it reads, rules that
// say what they match, and what a record without `access` means.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { networkProblem, regexProblem } from '../../../lib/system/auth-portal/rule-patterns.ts';
import { AccessInput, SiteAccessInput } from '../../../lib/access/schema.ts';
import { accessOf, DEFAULT_ACCESS } from '../../../lib/access/service.ts';
import { TunnelRecord } from '../../../lib/state/schemas.ts';

const s = suite('access model');

s('path patterns: RE2 constructs the portal refuses are refused, others compile', () => {
  for (const ok of ['^/webhook$', '^/api/health(\\?.*)?$', '^/static/.*\\.(css|js)$', '\\\\1 is an escaped backslash then 1']) assert.is(regexProblem(ok), null, ok);
  assert.match(regexProblem('^(?<=a)b')!, /lookbehind/);
  assert.match(regexProblem('^(?<!a)b')!, /lookbehind/);
  assert.match(regexProblem('^a(?=b)')!, /lookahead/);
  assert.match(regexProblem('^(a)\\1$')!, /backreferences/);
  assert.match(regexProblem('^(?<x>a)\\k<x>$')!, /backreferences/);
  assert.match(regexProblem('^a++$')!, /possessive/);
  assert.match(regexProblem('^(?>a)$')!, /atomic/);
  assert.match(regexProblem('^(unclosed')!, /does not compile/);
});

s('networks: an address or a CIDR range, v4 or v6', () => {
  for (const ok of ['10.0.0.0/8', '192.0.2.7', '2001:db8::/32', '::1']) assert.is(networkProblem(ok), null, ok);
  for (const bad of ['10.0.0.0/33', '2001:db8::/129', 'example.com', '10.0.0.0/8/1', '10.0.0/8', '']) assert.ok(networkProblem(bad), bad);
});

s('input: defaults, a rule needs what it matches, unique lists, sites cannot be public', () => {
  assert.equal(AccessInput.parse({}), { mode: 'authenticated', users: [], groups: [], rules: [] });
  assert.equal(AccessInput.parse({ mode: 'restricted', users: ['alice', 'alice'] }).users, ['alice']);
  assert.not.ok(AccessInput.safeParse({ rules: [{ policy: 'bypass' }] }).success, 'a rule for the whole app');
  assert.not.ok(AccessInput.safeParse({ rules: [{ policy: 'bypass', resources: ['(?<=x)'] }] }).success);
  assert.not.ok(AccessInput.safeParse({ rules: [{ policy: 'deny', networks: ['300.0.0.0/8'] }] }).success);
  assert.not.ok(AccessInput.safeParse({ rules: [{ policy: 'deny', methods: ['FETCH'] }] }).success);
  assert.not.ok(AccessInput.safeParse({ public: true }).success, 'strict: the mode says public');
  assert.ok(AccessInput.safeParse({ mode: 'public' }).success);
  assert.not.ok(SiteAccessInput.safeParse({ mode: 'public' }).success);
});

s('upgrades: a stored tunnel without `access` parses and reads as the default; a site from its allowedUsers', () => {
  const old = TunnelRecord.parse({ id: '0b6f3e1c-1c9a-4e0e-9a53-2f4f3d0c6a11', subdomain: 'app', fqdn: 'app.example.test', port: 8080, description: null, enabled: true, createdAt: '2026-01-01T00:00:00Z' });
  assert.is(old.access, undefined);
  assert.equal(accessOf(old), DEFAULT_ACCESS);
  assert.equal(accessOf({ allowedUsers: ['bob'] }), { mode: 'restricted', users: ['bob'], groups: [], rules: [] });
  assert.equal(accessOf({ allowedUsers: [] }), DEFAULT_ACCESS);
});

s.run();
