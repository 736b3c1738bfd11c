import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { moveWatcher } from '../../../panel/src/reload-when-moved.ts';

// A tunnel page asks its chart again only when the status says its traffic moved
// (panel/src/reload-when-moved.ts): the first status answer is no move, the GET on mount has it.

const s = suite('panel: reload a tunnel\'s chart when its traffic moved');

const run = (keys: string[]) => { const watch = moveWatcher(); return keys.map((k) => watch(k)); };

s('the first status answer after the mount is no move: the page fetches its chart once', () => {
  assert.equal(run(['', 'a']), [false, false]);
  assert.equal(run(['a']), [false]);
});

s('a changed key is a move, the same key again is not', () => {
  assert.equal(run(['', 'a', 'a', 'b', 'b', 'c']), [false, false, false, true, false, true]);
});

s('an empty key between two keys keeps the last one: back with the same traffic is no move', () => {
  assert.equal(run(['a', '', 'a', '', 'b']), [false, false, false, false, true]);
});

s.run();
