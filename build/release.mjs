// Assembles what an operator copies to a box: dist/release/ (the bundle and its launcher, the startup
// snapshot's builder entry and start script, the panel client when one was built, a shell launcher,
// VERSION) and dist/relay-panel-<version>.tar.gz.
// Nothing in it needs `npm install`: the bundle carries every dependency, Node 20+ is the one thing
// the box needs.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFileOf } from './build.mjs';
import { snapshotEntryOf, startScriptOf } from './snapshot.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Where a built panel client may be, first match wins (the panel build decides the name). */
const CLIENT_CANDIDATES = ['dist/panel', 'dist/client', 'panel/dist'];

// The launcher finds node, refuses anything older than 20, and runs the bundle beside it.
const LAUNCHER = `#!/bin/sh
# relay-panel launcher: relay-panel [install|upgrade|uninstall|doctor|--config FILE] ...
set -e
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
node=\${RELAY_PANEL_NODE:-$(command -v node || true)}
if [ -z "$node" ]; then
  echo "relay-panel needs Node.js 20 or later: see README 'Production'" >&2
  exit 1
fi
major=$("$node" -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "relay-panel needs Node.js 20 or later (found $("$node" --version))" >&2
  exit 1
fi
exec "$node" --max-semi-space-size=4 "$here/server.mjs" "$@"
`;

async function exists(path) {
  return stat(path).then(() => true, () => false);
}

/** The version names the exact bundle: package version plus the content hash of the launcher, the bundle and the snapshot's entry and start script. */
async function releaseVersion(serverFile) {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  const hash = createHash('sha256').update(await readFile(serverFile)).update(await readFile(bundleFileOf(serverFile))).update(await readFile(snapshotEntryOf(serverFile))).update(await readFile(startScriptOf(serverFile))).digest('hex').slice(0, 12);
  return `${pkg.version}-${hash}`;
}

export async function release({
  serverFile = join(root, 'dist/server.mjs'),
  outDir = join(root, 'dist/release'),
  clientDirs = CLIENT_CANDIDATES.map((c) => join(root, c)),
  quiet = false,
} = {}) {
  const version = await releaseVersion(serverFile);
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await cp(serverFile, join(outDir, 'server.mjs'));
  await cp(bundleFileOf(serverFile), bundleFileOf(join(outDir, 'server.mjs')));
  if (await exists(`${serverFile}.map`)) await cp(`${serverFile}.map`, join(outDir, 'server.mjs.map'));
  // the startup snapshot's builder entry and start script; the blob itself is made on the box (lib/install/steps/snapshot.ts)
  for (const file of [snapshotEntryOf(serverFile), startScriptOf(serverFile)]) await cp(file, join(outDir, basename(file)));
  let client = null;
  for (const candidate of clientDirs) {
    if (await exists(join(candidate, 'index.html'))) {
      client = candidate;
      await cp(candidate, join(outDir, 'panel'), { recursive: true });
      break;
    }
  }
  await writeFile(join(outDir, 'relay-panel'), LAUNCHER);
  await chmod(join(outDir, 'relay-panel'), 0o755);
  await writeFile(join(outDir, 'VERSION'), `${version}\n`);
  const tarball = join(dirname(outDir), `relay-panel-${version}.tar.gz`);
  // the archive unpacks into relay-panel-<version>/ so releases never overwrite each other
  execFileSync('tar', ['-czf', tarball, `--transform=s,^${basename(outDir)},relay-panel-${version},`, '-C', dirname(outDir), basename(outDir)]);
  if (!quiet) console.log(`release ${version}: ${outDir}${client ? ` (panel client from ${client})` : ' (no panel client built)'}, ${tarball}`);
  return { version, outDir, tarball };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await release();
