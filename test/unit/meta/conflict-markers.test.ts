// A merge whose conflict was committed unresolved (README.md carried one for a session) is caught by
// the suite, not by a reader: no tracked text file may hold a conflict's opening or closing marker.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../../../', import.meta.url));
// built, so this file does not hold the markers it looks for
const MARKER = new RegExp(`^(${'<'.repeat(7)}|${'>'.repeat(7)}) `, 'm');

/** The 1-based line of the first conflict marker in `text`, or 0. */
function markerLine(text: string): number {
  const match = MARKER.exec(text);
  return match ? text.slice(0, match.index).split('\n').length : 0;
}

const s = suite('conflict markers');

s('a conflict left in a text is found, and its line named', () => {
  const conflicted = ['intro', `${'<'.repeat(7)} HEAD`, 'ours', '='.repeat(7), 'theirs', `${'>'.repeat(7)} branch`].join('\n');
  assert.is(markerLine(conflicted), 2);
  assert.is(markerLine('a heading\n=======\ntext'), 0, 'a setext heading is not a conflict');
});

s('no tracked text file holds a conflict marker', () => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  assert.ok(files.length > 100, 'git listed the repository');
  const conflicted = files.flatMap((file) => {
    let text: string;
    try { text = readFileSync(root + file, 'utf8'); } catch { return []; }
    const line = markerLine(text);
    return line ? [`${file}:${line}`] : [];
  });
  assert.equal(conflicted, []);
});

s.run();
