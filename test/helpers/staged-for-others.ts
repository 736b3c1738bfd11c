// Code that a test runs as another user (the panel's, chisel's, Authelia's) is staged outside the
// checkout first: a clone may sit in a directory only its owner can enter (root's home is 0700 on
// Debian, `mktemp -d` makes 0700), where no other user can reach a script, the sources or
// node_modules. Staged files are world-readable copies in a directory the test made reachable.
import { chmod, copyFile } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The checkout this test runs from: nothing under it may be handed to another user. */
export const checkout = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export const insideCheckout = (path: string) => resolve(path) === checkout || resolve(path).startsWith(checkout + sep);

/** Refuses argv that names a file of the checkout: another user cannot be assumed to reach it. */
export function refuseCheckoutPaths(argv: readonly string[]): void {
  const named = argv.find((arg) => arg.startsWith('/') && insideCheckout(arg));
  if (named) throw new Error(`another user is asked to run ${named}, a file of the checkout, which a private clone (0700) keeps from it: stage it (test/helpers/staged-for-others.ts)`);
}

/** A copy of one self-contained file of the checkout in `dir`, readable (and, if it was, executable) by all. */
export async function stageFile(source: string, dir: string): Promise<string> {
  const staged = join(dir, basename(source));
  await copyFile(source, staged);
  await chmod(staged, 0o755);
  return staged;
}

/**
 * `source` (module code importing the checkout's TypeScript by paths relative to `fromDir`)
 * bundled into one plain script in `dir`: the other user runs it without the sources, the
 * TypeScript hooks or node_modules.
 */
export async function stageBundle(source: string, fromDir: string, dir: string, name: string): Promise<string> {
  const outfile = join(dir, `${name}.mjs`);
  await build({
    stdin: { contents: source, resolveDir: fromDir, loader: 'ts', sourcefile: `${name}.ts` },
    bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, logLevel: 'silent',
    // a bundle of CommonJS packages needs require in an ES module
    banner: { js: "import { createRequire as __relayRequire } from 'node:module'; const require = __relayRequire(import.meta.url);" },
  });
  await chmod(outfile, 0o644);
  return outfile;
}
