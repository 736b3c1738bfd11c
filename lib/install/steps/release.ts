// The release step: the running release copied beside earlier ones, `current` pointed at it.
import { cp, readFile, rename, rm, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { pathExists } from '../../system/common/fs.ts';
import { chownTree, pointLink } from '../files.ts';
import { InstallError } from '../host-checks.ts';
import type { Installation } from '../installation.ts';
import { ROOT, type Outcome } from './step.ts';

export async function releaseVersion(dir: string): Promise<string> {
  const version = (await readFile(join(dir, 'VERSION'), 'utf8').catch(() => '')).trim();
  if (!/^[0-9A-Za-z.+-]{1,64}$/.test(version)) throw new InstallError(`${dir} is not a release (no VERSION file)`, 'run the server.mjs of an unpacked release');
  return version;
}

/** Copies the running release into releases/<version> (once) and points `current` at it. */
export async function placeRelease(inst: Installation, source: string): Promise<{ version: string; changed: boolean }> {
  const version = await releaseVersion(source);
  const target = join(inst.layout.releasesDir, version);
  let changed = false;
  if (source !== target && !(await pathExists(join(target, 'VERSION')))) {
    // copied beside, then renamed: an interrupted copy never looks like a release
    await rm(`${target}.partial`, { recursive: true, force: true });
    await cp(source, `${target}.partial`, { recursive: true });
    await rename(`${target}.partial`, target);
    // the directory's time says when the release was placed: upgrade prunes the oldest by it (prune-releases.ts)
    await utimes(target, new Date(), new Date());
    await chownTree(target, ROOT);
    changed = true;
  }
  changed = (await pointLink(inst.layout.current, join('releases', version))) || changed;
  return { version, changed };
}

export async function release(inst: Installation): Promise<Outcome> {
  const { version, changed } = await placeRelease(inst, inst.options.release);
  return { status: changed ? 'changed' : 'done', message: `release ${version} in ${inst.layout.current}` };
}
