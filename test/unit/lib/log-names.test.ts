// A log line names at most ten things and counts the rest: the start-up refresh of a box whose
// 857 vhosts all changed logged one line of 30 KB with every name in it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { namesForLog } from '../../../lib/log.ts';

const s = suite('names in a log line');

s('up to ten names are all shown', () => {
  assert.is(namesForLog(['a', 'b']), 'a, b');
  const ten = Array.from({ length: 10 }, (_, i) => `v${i}`);
  assert.is(namesForLog(ten), ten.join(', '));
});

s('past ten, the first ten and how many more', () => {
  const many = Array.from({ length: 857 }, (_, i) => `relay-app-svc-${i}.conf`);
  const line = namesForLog(many);
  assert.ok(line.startsWith('relay-app-svc-0.conf, relay-app-svc-1.conf'));
  assert.ok(line.endsWith('relay-app-svc-9.conf and 847 more'), line);
  assert.ok(line.length < 300, `${line.length} characters`);
});

s.run();
