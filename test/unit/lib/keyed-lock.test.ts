// KeyedLock.runAll: a task holding several keys at once (the tunnel repair holds every tunnel it
// repairs while one nginx test and reload covers them all).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyedLock } from '../../../lib/keyed-lock.ts';

const s = suite('keyed lock: several keys at once');

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
};

s('runAll waits for a key another task holds, and holds all its keys until it ends', async () => {
  const lock = new KeyedLock();
  const seen: string[] = [];
  const a = gate();
  const holdingA = lock.run('a', () => a.opened.then(() => void seen.push('a done')));
  const inside = gate();
  const task = gate();
  const all = lock.runAll(['b', 'a'], async () => {
    seen.push('all');
    inside.open();
    await task.opened;
    seen.push('all done');
  });
  await lock.run('c', async () => void seen.push('c'));
  assert.equal(seen, ['c'], 'an untaken key does not wait; runAll waits for a');
  a.open();
  await inside.opened;
  const onA = lock.run('a', async () => void seen.push('a again'));
  const onB = lock.run('b', async () => void seen.push('b again'));
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(seen, ['c', 'a done', 'all'], 'a and b wait while the task runs');
  task.open();
  await Promise.all([holdingA, all, onA, onB]);
  assert.equal(seen.slice(0, 4), ['c', 'a done', 'all', 'all done']);
  assert.equal(seen.slice(4).sort(), ['a again', 'b again']);
});

s('two runAll calls over the same keys in other orders both finish, one after the other', async () => {
  const lock = new KeyedLock();
  const seen: string[] = [];
  const slow = () => new Promise((r) => setTimeout(r, 5));
  await Promise.all([
    lock.runAll(['x', 'y', 'z'], async () => (seen.push('first:start'), await slow(), seen.push('first:end'))),
    lock.runAll(['z', 'y', 'x'], async () => (seen.push('second:start'), await slow(), seen.push('second:end'))),
  ]);
  assert.equal(seen, ['first:start', 'first:end', 'second:start', 'second:end']);
});

s('a task over no keys runs at once; its failure reaches the caller and frees the keys', async () => {
  const lock = new KeyedLock();
  assert.is(await lock.runAll([], async () => 'ran'), 'ran');
  await lock.runAll(['k'], async () => {
    throw new Error('broke');
  }).then(() => assert.unreachable(), (error: Error) => assert.is(error.message, 'broke'));
  assert.is(await lock.run('k', async () => 'free'), 'free');
});

s.run();
