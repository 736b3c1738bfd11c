// The registered domain Let's Encrypt counts new certificates against: the Public Suffix List's,
// private section included, through the tldts package.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadPublicSuffixList, registeredDomain } from '../../../../lib/certs/limits/registered-domain.ts';

const s = suite('certificate limits: the registered domain of a name');
s.before(() => loadPublicSuffixList());

s('one label under an ICANN suffix: example.com, and example.co.uk under the two-label co.uk', () => {
  assert.is(registeredDomain('www.example.com'), 'example.com');
  assert.is(registeredDomain('example.com'), 'example.com');
  assert.is(registeredDomain('new.blog.example.co.uk'), 'example.co.uk');
  assert.is(registeredDomain('app.relay.com.au'), 'relay.com.au');
});

s("a private suffix counts as the list says: each github.io user is a registered domain, as Let's Encrypt counts it", () => {
  assert.is(registeredDomain('app.alice.github.io'), 'alice.github.io');
  assert.is(registeredDomain('bob.github.io'), 'bob.github.io');
  assert.not.equal(registeredDomain('a.alice.github.io'), registeredDomain('a.bob.github.io'));
});

s('case and a trailing dot do not matter; a bare suffix counts as itself', () => {
  assert.is(registeredDomain('App.Example.COM.'), 'example.com');
  assert.is(registeredDomain('co.uk'), 'co.uk');
});

s.run();
