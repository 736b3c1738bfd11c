// The releases the system test installs: the one `npm run build` makes, a second build of the
// same code under another version, and a build whose server cannot start (its launcher exits
// before serving, while its operator commands still run, as a release with a start-up bug would).
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
// @ts-expect-error plain JS build script
import { bundleFileOf } from '../../build/build.mjs';
// @ts-expect-error plain JS build script
import { release } from '../../build/release.mjs';
// @ts-expect-error plain JS build script
import { snapshotEntryOf, startScriptOf } from '../../build/snapshot.mjs';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../..', import.meta.url));

export interface Release {
  version: string;
  tarball: string;
}

export interface Releases {
  first: Release;
  second: Release;
  broken: Release;
}

const OPERATOR_COMMANDS = "['install', 'upgrade', 'uninstall', 'doctor', 'panel-task', 'root-helper', 'root-call']";

/**
 * A copy of the built release with `prelude` run first by its launcher, and `startPrelude` by the
 * start script the unit runs (a start from the snapshot never runs the launcher's code).
 */
async function variant(dir: string, name: string, prelude: string, startPrelude = ''): Promise<Release> {
  const out = join(dir, name);
  await mkdir(out, { recursive: true });
  const built = (file: string) => join(repo, 'dist', file);
  const server = join(out, 'server.mjs');
  await writeFile(server, `${prelude}\n${await readFile(built('server.mjs'), 'utf8')}`);
  await copyFile(bundleFileOf(built('server.mjs')), bundleFileOf(server));
  await copyFile(snapshotEntryOf(built('server.mjs')), snapshotEntryOf(server));
  const start = (await readFile(startScriptOf(built('server.mjs')), 'utf8')).replace('\n', `\n${startPrelude}`);
  await writeFile(startScriptOf(server), start, { mode: 0o755 });
  const made = await release({ serverFile: server, outDir: join(out, 'release'), clientDirs: [join(repo, 'dist/panel')], quiet: true });
  return { version: made.version, tarball: made.tarball };
}

export async function buildReleases(dir: string): Promise<Releases> {
  // the release half of the README's `npm run build` (the bundle, then the release), as an operator
  // preparing a box runs it; its third part, the npm package's dist-lib/, is left to the package
  // test, which builds it at the same time (this stage runs beside the integration stage)
  const build = async (script: string) => (await run(process.execPath, [join(repo, 'build', script)], { cwd: repo, maxBuffer: 16 * 1024 * 1024 })).stdout;
  const stdout = (await build('build.mjs')) + (await build('release.mjs'));
  const m = /release (\S+): .* (\S+\.tar\.gz)$/m.exec(stdout);
  if (!m) throw new Error(`the release build did not name its release:\n${stdout}`);
  return {
    first: { version: m[1]!, tarball: m[2]! },
    second: await variant(dir, 'second', '// a second build of the same code: another version'),
    broken: await variant(
      dir, 'broken',
      `if (!${OPERATOR_COMMANDS}.includes(process.argv[2])) { console.error('this build cannot start'); process.exit(1); }`,
      "echo 'this build cannot start' >&2; exit 1\n",
    ),
  };
}
