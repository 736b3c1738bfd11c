import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeExample, runExample, typecheckExample } from '../../helpers/readme-example.ts';

// The README's "Writing a plugin" test example, run exactly as printed against the fixture plugin.

const s = suite('README: writing a plugin');

s('the plugin test example runs as printed and prints what the README says', async () => {
  const { code, output } = readmeExample('Writing a plugin');
  assert.is(await runExample(code), output);
});

s('the example type-checks under tsconfig.json', async () => {
  assert.is(await typecheckExample(readmeExample('Writing a plugin').code), '');
});

// the check above can fail: a type error added to the example is reported
s('a type error in an example is reported', async () => {
  const diagnostics = await typecheckExample(`${readmeExample('Writing a plugin').code}\nconst wrong: number = 'text';\n`);
  assert.match(diagnostics, /TS2322/);
});

s.run();
