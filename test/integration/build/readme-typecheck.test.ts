import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeExample, typecheckExamples } from '../../helpers/readme-example.ts';

// The README's code samples type-check under the project's tsconfig.json, as an integrator would
// compile them (one tsc run for them all: too slow for the unit half, which runs them).

const s = suite('README: the samples type-check');

s('"Reusing the handlers" and "Writing a plugin" type-check under tsconfig.json, and a type error added to one is reported', async () => {
  const plugin = readmeExample('Writing a plugin').code;
  const diagnostics = await typecheckExamples({
    handlers: readmeExample('Reusing the handlers').code,
    plugin,
    // the check can fail: the same sample with an error is reported, and only it
    broken: `${plugin}\nconst wrong: number = 'text';\n`,
  });
  assert.is(diagnostics['handlers'], '');
  assert.is(diagnostics['plugin'], '');
  assert.match(diagnostics['broken']!, /TS2322/);
});

s.run();
