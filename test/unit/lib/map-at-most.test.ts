// mapAtMost: the answers keep the items' order, never more than `limit` run at once, and a failure
// starts nothing more and is thrown after the running ones end.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mapAtMost } from '../../../lib/map-at-most.ts';

const s = suite('mapAtMost');
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

s('keeps the order, at most `limit` at once, all of them run', async () => {
  let running = 0;
  let most = 0;
  const items = Array.from({ length: 20 }, (_, i) => i);
  // uneven times: later items finish before earlier ones
  const out = await mapAtMost(items, 3, async (n, index) => {
    running++;
    most = Math.max(most, running);
    await tick((n * 7) % 5);
    running--;
    return `${n}:${index}`;
  });
  assert.equal(out, items.map((n) => `${n}:${n}`));
  assert.is(most, 3);
});

s('no items: no call; a limit above the count starts one worker per item', async () => {
  assert.equal(await mapAtMost([], 4, async () => assert.unreachable()), []);
  let running = 0;
  let most = 0;
  await mapAtMost([1, 2], 16, async () => {
    most = Math.max(most, ++running);
    await tick(1);
    running--;
  });
  assert.is(most, 2);
});

s('a failure: no further item starts, and the error comes after the running ones ended', async () => {
  const started: number[] = [];
  const ended: number[] = [];
  const failed = await mapAtMost([0, 1, 2, 3, 4, 5], 2, async (n) => {
    started.push(n);
    if (n === 1) throw new Error('one fails');
    await tick(5);
    ended.push(n);
    return n;
  }).then(() => null, (error: Error) => error.message);
  assert.is(failed, 'one fails');
  assert.equal(started, [0, 1], 'the failure stopped the rest');
  assert.equal(ended, [0], 'the running item ended before the error was thrown');
});

s.run();
