import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTimeout } from '../../helpers/timeout.ts';

const t = suite('test helpers');

t('withTimeout rejects a promise that never settles', async () => {
  const never = new Promise<void>(() => {});
  let message = '';
  try { await withTimeout('never', 20, () => never); } catch (e) { message = (e as Error).message; }
  assert.match(message, 'timed out after 20 ms');
});

t('withTimeout passes the value through', async () => {
  assert.is(await withTimeout('quick', 1000, async () => 42), 42);
});

t.run();
