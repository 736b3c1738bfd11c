import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inputOf } from '../../../panel/src/form.ts';

// Which input of a form a server's issue is shown under (panel/src/form.ts): its own, the list
// input an item belongs to, or none (summarised above the form).

const s = suite('panel: the input an issue belongs to');
const values = { publicPort: '', allow: '', rules: '' };

s('a field\'s own path, and an item of a list input declared so', () => {
  assert.is(inputOf('publicPort', values, []), 'publicPort');
  assert.is(inputOf('allow.1', values, ['allow']), 'allow');
  assert.is(inputOf('allow', values, ['allow']), 'allow');
});

s('an item of a list not declared so, a nested field or no input: none', () => {
  assert.is(inputOf('allow.1', values, []), null);
  assert.is(inputOf('allow.1.x', values, ['allow']), null);
  assert.is(inputOf('rules.0.resources', values, ['allow']), null);
  assert.is(inputOf('', values, ['allow']), null);
  assert.is(inputOf('other.0', values, ['allow']), null);
});

s.run();
