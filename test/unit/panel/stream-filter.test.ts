import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readStreamFilter, writeStreamFilter } from '../../../panel/src/stream-filter.ts';

// The TCP and UDP tunnel list's protocol filter in the URL (panel/src/stream-filter.ts), beside
// the HTTP tunnel list's parameters.

const s = suite('panel: the stream list\'s protocol filter in the URL');

s('read: tcp or udp, anything else the whole list', () => {
  assert.is(readStreamFilter('?streams=udp'), 'udp');
  assert.is(readStreamFilter('?q=app&streams=tcp'), 'tcp');
  assert.is(readStreamFilter(''), 'all');
  assert.is(readStreamFilter('?streams=http'), 'all');
});

s('written beside the HTTP list\'s parameters, left out for the whole list', () => {
  assert.is(writeStreamFilter('?q=app&page=2', 'udp'), '?q=app&page=2&streams=udp');
  assert.is(writeStreamFilter('?streams=udp', 'tcp'), '?streams=tcp');
  assert.is(writeStreamFilter('?q=app&streams=udp', 'all'), '?q=app');
  assert.is(writeStreamFilter('?streams=udp', 'all'), '');
});

s.run();
