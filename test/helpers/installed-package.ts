import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// The package as an integrator gets it: `npm pack` (whose prepack script builds dist-lib/), then the
// tarball installed into a new project that has nothing else of this repository.

const run = promisify(execFile);
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Packs the repository into `dir` (empty); resolves with the tarball's path. */
export async function packInto(dir: string): Promise<string> {
  // the file is found by listing: the prepack build prints to stdout too, so `--json` is not clean
  await run('npm', ['pack', '--pack-destination', dir], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
  const tarballs = (await readdir(dir)).filter((name) => name.endsWith('.tgz'));
  if (tarballs.length !== 1) throw new Error(`npm pack left ${tarballs.length} tarballs in ${dir}`);
  return join(dir, tarballs[0]!);
}

/** The tarball's file list, package/ prefix removed. */
export async function tarballFiles(tarball: string): Promise<string[]> {
  const { stdout } = await run('tar', ['-tzf', tarball], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.split('\n').filter(Boolean).map((line) => line.replace(/^package\//, ''));
}

/**
 * A new ES-module project in `dir` with the tarball installed. `npm install --offline` first; npm's
 * cache, filled by `npm ci` from the lockfile, holds the dependencies' tarballs but not the registry
 * documents a fresh install resolves versions from, so without network that fails with ENOTCACHED.
 * Then the tarball is unpacked where npm would put it (node_modules/relay-panel) and each of its
 * dependencies is linked from this repository's node_modules (same versions, the lockfile's).
 * Resolves with how it was installed.
 */
export async function installInto(dir: string, tarball: string): Promise<'npm' | 'unpacked and linked'> {
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
  try {
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: dir });
    return 'npm';
  } catch (error) {
    if (!/ENOTCACHED/.test(String((error as { stderr?: string }).stderr))) throw error;
  }
  const installed = join(dir, 'node_modules', 'relay-panel');
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  const { dependencies } = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const name of Object.keys(dependencies)) {
    const link = join(dir, 'node_modules', name);
    await mkdir(dirname(link), { recursive: true });
    await symlink(join(repoRoot, 'node_modules', name), link);
  }
  return 'unpacked and linked';
}

/** Runs `argv` in the project; resolves with its standard output. */
export async function runIn(dir: string, file: string, argv: string[]): Promise<string> {
  return (await run(file, argv, { cwd: dir })).stdout;
}
