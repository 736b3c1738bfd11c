import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeExample, typecheckExample } from '../../helpers/readme-example.ts';

// The README's code samples type-check under the project's tsconfig.json, as an integrator would
// compile them (tsc runs once per sample: too slow for the unit half, which runs them).

const s = suite('README: the samples type-check');

for (const section of ['Reusing the handlers', 'Writing a plugin']) {
  s(`"${section}" type-checks under tsconfig.json`, async () => {
    assert.is(await typecheckExample(readmeExample(section).code), '');
  });
}

// the check above can fail: a type error added to a sample is reported
s('a type error in a sample is reported', async () => {
  const diagnostics = await typecheckExample(`${readmeExample('Writing a plugin').code}\nconst wrong: number = 'text';\n`);
  assert.match(diagnostics, /TS2322/);
});

s.run();
