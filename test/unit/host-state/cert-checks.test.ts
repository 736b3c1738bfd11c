import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { haveCertificates } from '../../../lib/host-state/cert-checks.ts';

const test = suite('certificate checks of the desired host state');

test('answers each name in order, at most 16 reads at once, however many names', async () => {
  let open = 0;
  let most = 0;
  const certs = {
    async has(name: string) {
      most = Math.max(most, ++open);
      // later names answer first: the order of the answers is the names', not the reads'
      await new Promise((done) => setTimeout(done, (100 - Number(name.slice(1))) % 7));
      open--;
      return Number(name.slice(1)) % 3 === 0;
    },
  };
  const names = Array.from({ length: 100 }, (_, i) => `n${i}`);
  assert.equal(await haveCertificates(certs, names), names.map((_, i) => i % 3 === 0));
  assert.is(most, 16);
  assert.equal(await haveCertificates(certs, []), []);
});

test('a failed read fails the whole check, as one read in turn did', async () => {
  const certs = { has: async (name: string) => (name === 'bad' ? Promise.reject(new Error('no such name')) : true) };
  const failed = await haveCertificates(certs, ['a', 'bad', 'c']).then(() => null, (error: Error) => error);
  assert.match(failed?.message ?? '', 'no such name');
});

test.run();
