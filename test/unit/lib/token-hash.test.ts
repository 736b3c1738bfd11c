// The one lookup of a presented token (invitations, enrollment): every stored hash is compared, so
// the last match wins where an early exit would stop at the first.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findByToken, hashToken } from '../../../lib/token-hash.ts';

const s = suite('token hashes: findByToken');

s('finds the record of the token, none for another; no early exit (a later match wins over an earlier one)', () => {
  const records = [{ id: 'a', tokenHash: hashToken('one') }, { id: 'b', tokenHash: hashToken('two') }, { id: 'c', tokenHash: hashToken('two') }];
  assert.is(findByToken(records, 'one')?.id, 'a');
  assert.is(findByToken(records, 'two')?.id, 'c', 'every record was compared');
  assert.is(findByToken(records, 'three'), undefined);
  assert.is(findByToken([{ tokenHash: '' }], ''), undefined, 'an empty stored hash never matches');
});

s.run();
