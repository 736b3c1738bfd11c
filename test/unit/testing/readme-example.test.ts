import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeExample, runExample } from '../../helpers/readme-example.ts';

// The README's "Reusing the handlers" example, run exactly as printed: what it logs must be the
// output block that follows.

const s = suite('README: reusing the handlers');

s('the example runs as printed and prints what the README says', async () => {
  const { code, output } = readmeExample('Reusing the handlers');
  assert.ok(code.split('\n').filter(Boolean).length <= 12, 'about ten lines');
  assert.is(await runExample(code), output);
});

s.run();
