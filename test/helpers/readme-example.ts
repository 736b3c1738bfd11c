import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';

// A README example run exactly as printed: the section's ```ts block is written to the repository
// root (where the README says to save it) and imported through the same TypeScript hook; the
// caller compares what it logged with the ```text block that follows.

const root = new URL('../../', import.meta.url);

export function readmeExample(heading: string): { code: string; output: string } {
  const readme = readFileSync(new URL('README.md', root), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith(heading));
  if (!section) throw new Error(`README has no "${heading}" section`);
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  const output = /```text\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code || !output) throw new Error('the section needs a ```ts example and a ```text output');
  return { code, output };
}

/** Runs the code from the repository root; resolves with what it printed, one line per console.log. */
export async function runExample(code: string): Promise<string> {
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
  return printed.join('\n') + '\n';
}
