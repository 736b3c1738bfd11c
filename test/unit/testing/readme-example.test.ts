import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

// The README's "Reusing the handlers" example, run exactly as printed: its code block is written to
// the repository root (where the README says to save it) and imported through the same TypeScript
// hook; what it logs must be the output block that follows.

const root = new URL('../../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');

function exampleOf(text: string): { code: string; output: string } {
  const section = text.split(/^## /m).find((part) => part.startsWith('Reusing the handlers'));
  if (!section) throw new Error('README has no "Reusing the handlers" section');
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  const output = /```text\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code || !output) throw new Error('the section needs a ```ts example and a ```text output');
  return { code, output };
}

const s = suite('README: reusing the handlers');

s('the example runs as printed and prints what the README says', async () => {
  const { code, output } = exampleOf(readme);
  assert.ok(code.split('\n').filter(Boolean).length <= 12, 'about ten lines');
  const file = join(root.pathname, `.readme-example-${randomBytes(4).toString('hex')}.ts`);
  const printed: string[] = [];
  const log = console.log;
  await writeFile(file, code);
  console.log = (...args: unknown[]) => void printed.push(format(...args));
  try {
    await import(pathToFileURL(file).href);
  } finally {
    console.log = log;
    await rm(file, { force: true });
  }
  assert.is(printed.join('\n') + '\n', output);
});

s.run();
