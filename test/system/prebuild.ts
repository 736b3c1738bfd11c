// The system test's box, built ahead: the releases and the Debian root file system (about a minute
// of mmdebstrap and dpkg, mostly waiting on the disk) are made while the other stages run, when the
// runner starts this in a child process (prebuild.mjs); the test then boots what is ready. The
// tarballs are copied beside the image: a later `npm run build` of another test must not change them.
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { buildImage } from './image.ts';
import { buildReleases, type Releases } from './releases.ts';

const MARKER = 'prebuilt.json';

export async function buildBox(dir: string): Promise<Releases> {
  const releases = await buildReleases(dir);
  const first = join(dir, basename(releases.first.tarball));
  await copyFile(releases.first.tarball, first);
  const kept = { ...releases, first: { ...releases.first, tarball: first } };
  await buildImage(join(dir, 'root'), { tarball: first });
  return kept;
}

export async function writeMarker(dir: string, outcome: { releases: Releases } | { error: string }): Promise<void> {
  await writeFile(join(dir, MARKER), JSON.stringify(outcome));
}

/** The releases of a box another process is building in `dir`, once it is done (or why it failed). */
export async function waitForBox(dir: string, timeoutMs = 15 * 60_000): Promise<Releases> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(join(dir, MARKER), 'utf8').catch(() => null);
    if (text !== null) {
      const outcome = JSON.parse(text) as { releases: Releases } | { error: string };
      if ('error' in outcome) throw new Error(`building the box ahead failed: ${outcome.error}`);
      return outcome.releases;
    }
    if (Date.now() > deadline) throw new Error(`the box built ahead in ${dir} was not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
