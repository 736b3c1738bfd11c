import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inSentence } from '../../../panel/src/format.ts';

// A label put inside a sentence (a copy button's name): only its first letter may change.

const s = suite('panel: a label inside a sentence');

s('its first letter small, the protocol and the names after it as written', () => {
  assert.is(inSentence('Client remote of TCP 47122'), 'client remote of TCP 47122');
  assert.is(inSentence('Environment RELAY_TOKEN'), 'environment RELAY_TOKEN');
  assert.is(inSentence('chisel arguments'), 'chisel arguments');
});

s('an acronym first stays as it is', () => {
  assert.is(inSentence('TOTP URI'), 'TOTP URI');
  assert.is(inSentence('P12 bundle'), 'P12 bundle');
  assert.is(inSentence(''), '');
});

s.run();
