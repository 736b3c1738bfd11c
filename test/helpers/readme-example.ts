import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, promisify } from 'node:util';
// @ts-expect-error plain JS build script
import { TSC } from '../../build/typescript-compiler.mjs';
import { importSource } from './import-source.ts';
// @ts-expect-error plain JS test helper
import { mirrorOf } from './mirror.mjs';

// A README example run exactly as printed: the section's ```ts block is written to the repository
// root (where the README says to save it) and loaded as the test process loads TypeScript; the
// caller compares what it logged with the ```text block that follows. The hook only strips types,
// so the example is also checked by tsc with the project's own compiler options.

const root = new URL('../../', import.meta.url);
const rootDir = fileURLToPath(root);

export function readmeExample(heading: string): { code: string; output: string } {
  const readme = readFileSync(new URL('README.md', root), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith(heading));
  if (!section) throw new Error(`README has no "${heading}" section`);
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  const output = /```text\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code || !output) throw new Error('the section needs a ```ts example and a ```text output');
  return { code, output };
}

/** The code saved as a `.ts` file in the repository root for the time of `body`. */
async function withExampleFile<T>(code: string, body: (name: string) => Promise<T>): Promise<T> {
  const name = `.readme-example-${randomBytes(4).toString('hex')}`;
  await writeFile(join(rootDir, `${name}.ts`), code);
  try {
    return await body(name);
  } finally {
    await rm(join(rootDir, `${name}.ts`), { force: true });
    await rm(mirrorOf(join(rootDir, `${name}.ts`)), { force: true });
  }
}

/** Runs the code from the repository root; resolves with what it printed, one line per console.log. */
export function runExample(code: string): Promise<string> {
  return withExampleFile(code, async (name) => {
    const printed: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void printed.push(format(...args));
    try {
      await importSource(join(rootDir, `${name}.ts`));
    } finally {
      console.log = log;
    }
    return printed.join('\n') + '\n';
  });
}

/**
 * tsc's diagnostics for each sample under tsconfig.json's compiler options ('' when it type-checks),
 * all samples in one tsc run: each run loads the whole server's types, tens of seconds under load.
 */
export async function typecheckExamples(samples: Record<string, string>): Promise<Record<string, string>> {
  const names = Object.fromEntries(Object.keys(samples).map((key) => [key, `.readme-example-${randomBytes(4).toString('hex')}`]));
  const project = join(rootDir, `${Object.values(names)[0]}.tsconfig.json`);
  const files = Object.values(names).map((name) => join(rootDir, `${name}.ts`));
  try {
    await Promise.all(Object.entries(samples).map(([key, code]) => writeFile(join(rootDir, `${names[key]}.ts`), code)));
    await writeFile(project, JSON.stringify({ extends: './tsconfig.json', include: [], files: Object.values(names).map((name) => `${name}.ts`) }));
    const output = await promisify(execFile)(process.execPath, [TSC, '--noEmit', '-p', project], { cwd: rootDir }).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    const lines = output.split('\n');
    return Object.fromEntries(Object.keys(samples).map((key) => [key, lines.filter((line) => line.startsWith(`${names[key]}.ts`)).join('\n')]));
  } finally {
    await Promise.all([project, ...files].map((file) => rm(file, { force: true })));
  }
}
