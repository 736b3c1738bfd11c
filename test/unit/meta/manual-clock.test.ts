// The tests' clock: `advance` runs every due task in time order, as time passing second by second;
// `jump` moves far at once and runs each due task once, as a real interval timer after a suspend.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../helpers/manual-clock.ts';

const DAY = 86_400_000;
const s = suite('manual clock');

s('advance runs a task once for each period that passed, each at its own time', () => {
  const clock = new ManualClock(0);
  const seen: number[] = [];
  clock.every(1000, () => seen.push(clock.now()));
  clock.advance(3500);
  assert.equal(seen, [1000, 2000, 3000]);
  assert.is(clock.now(), 3500);
});

s('jump runs each due task once, at the new time, and its period starts again from there', () => {
  const clock = new ManualClock(0);
  const seen: string[] = [];
  clock.every(1000, () => seen.push(`second ${clock.now()}`));
  clock.every(5 * 60_000, () => seen.push(`five minutes ${clock.now()}`));
  clock.every(100 * DAY, () => seen.push('not due'));
  clock.jump(61 * DAY);
  assert.equal(seen, [`second ${61 * DAY}`, `five minutes ${61 * DAY}`]);
  clock.advance(999);
  assert.is(seen.length, 2, 'the next second is a whole period after the jump');
  clock.advance(1);
  assert.equal(seen.slice(2), [`second ${61 * DAY + 1000}`]);
});

s('jump: a task stopped by another due task does not run', () => {
  const clock = new ManualClock(0);
  const seen: string[] = [];
  let stopSecond = () => {};
  clock.every(500, () => {
    seen.push('first');
    stopSecond();
  });
  stopSecond = clock.every(1000, () => seen.push('second'));
  clock.jump(DAY);
  assert.equal(seen, ['first']);
});

s.run();
