import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeExample, runExample } from '../../helpers/readme-example.ts';

// The README's "Writing a plugin" test example, run exactly as printed against the fixture plugin.

const s = suite('README: writing a plugin');

s('the plugin test example runs as printed and prints what the README says', async () => {
  const { code, output } = readmeExample('Writing a plugin');
  assert.is(await runExample(code), output);
});

s.run();
