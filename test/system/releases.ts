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

async function variant(dir: string, name: string, prelude: string): Promise<Release> {
  const out = join(dir, name);
  await mkdir(out, { recursive: true });
  const server = join(out, 'server.mjs');
  await writeFile(server, `${prelude}\n${await readFile(join(repo, 'dist/server.mjs'), 'utf8')}`);
  await copyFile(bundleFileOf(join(repo, 'dist/server.mjs')), bundleFileOf(server));
  const built = await release({ serverFile: server, outDir: join(out, 'release'), clientDirs: [join(repo, 'dist/panel')], quiet: true });
  return { version: built.version, tarball: built.tarball };
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
    broken: await variant(dir, 'broken', `if (!${OPERATOR_COMMANDS}.includes(process.argv[2])) { console.error('this build cannot start'); process.exit(1); }`),
  };
}
