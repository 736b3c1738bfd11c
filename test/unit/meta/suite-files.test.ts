// Every test file runs whole suites of its own: uvu's default `test` suite is one object per
// process, so in a worker that runs several files a test registered after its file's run() (or in
// a file sharing that suite) would run under another file, or never. Found once: a privileges test
// written after `test.run()` ran only when a later file of the same worker used `test` too.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const testRoot = new URL('../../', import.meta.url).pathname;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === 'fixtures' ? [] : testFiles(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

const s = suite('test files');

s('no file uses uvu\'s shared default suite, and nothing is registered after a file\'s last run()', () => {
  const files = testFiles(testRoot);
  assert.ok(files.length > 50, `found ${files.length} test files`);
  const problems: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const name = relative(testRoot, file);
    if (/import\s*\{[^}]*\btest\b[^}]*\}\s*from\s*'uvu'/.test(text)) problems.push(`${name}: imports uvu's default \`test\` suite`);
    const lastRun = text.lastIndexOf('.run();');
    if (lastRun < 0) problems.push(`${name}: runs no suite`);
    else if (text.slice(lastRun + '.run();'.length).trim() !== '') problems.push(`${name}: code after its last run()`);
  }
  assert.equal(problems, []);
});

s.run();
