// A V8 startup snapshot of the server bundle's evaluation (lib/snapshot-entry.ts), beside the
// launcher: server.snapshot.blob, and server-start, the shell script that starts from it. A blob is
// tied to the node binary and the V8 flags it was made with: node refuses any other before a line of
// JavaScript runs (exit code 14, or an abort for a damaged file), so the choice is the script's. It
// starts from the blob only when the record beside it (server.snapshot.blob.made) names this node
// binary and this blob as `stat` sees them now, and these flags; otherwise through the launcher and
// its code cache, as before. A blob made for another bundle is caught later, in the start itself.
import { execFile } from 'node:child_process';
import { chmod, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

/** lib/node-flags.ts's, which a plain-JS build script cannot import (test/unit/build/node-flags.test.ts keeps them in step). */
export const SNAPSHOT_NODE_FLAGS = ['--max-semi-space-size=4'];

export const snapshotEntryOf = (outfile) => join(dirname(outfile), 'server.snapshot.cjs');
export const blobOf = (outfile) => join(dirname(outfile), 'server.snapshot.blob');
export const startScriptOf = (outfile) => join(dirname(outfile), 'server-start');
/** device, inode, size, modification and change time: a replaced or rewritten file differs in one */
export const STAT_FORMAT = '%d:%i:%s:%Y:%Z';

/**
 * The start script. `node` is RELAY_PANEL_NODE or the first on PATH, as for the release launcher;
 * the blob is RELAY_PANEL_SNAPSHOT or server.snapshot.blob beside it.
 */
export const startScript = (flags = SNAPSHOT_NODE_FLAGS) => `#!/bin/sh
# relay-panel server start (build/snapshot.mjs): server-start [--config FILE] ...
# From the V8 startup snapshot when its record names this node binary, this blob and these flags;
# otherwise through server.mjs and its code cache. One \`stat\` decides: node itself would refuse a
# blob made by another binary or with other flags, and exit before the panel could fall back.
case "$0" in */*) here=\${0%/*} ;; *) here=. ;; esac
node=\${RELAY_PANEL_NODE:-$(command -v node)}
if [ -z "$node" ]; then
  echo "relay-panel needs Node.js 20 or later: see README 'Production'" >&2
  exit 1
fi
blob=\${RELAY_PANEL_SNAPSHOT:-$here/server.snapshot.blob}
flags='${flags.join(' ')}'
if [ -r "$blob.made" ] && { read -r made_node && read -r made_blob && read -r made_flags; } < "$blob.made" \\
  && [ "$made_node
$made_blob
$made_flags" = "$(stat -L -c '${STAT_FORMAT}' -- "$node" "$blob" 2>/dev/null)
$flags" ]; then
  exec "$node" $flags --snapshot-blob "$blob" "$here/server.mjs" "$@"
fi
exec "$node" $flags "$here/server.mjs" "$@"
`;

/** lib/snapshot-entry.ts as one CommonJS script, the builder's entry (`--build-snapshot` takes a single file). */
export async function bundleSnapshotEntry(outfile, build) {
  const result = await build({
    entryPoints: [`${root}lib/snapshot-entry.ts`],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minifySyntax: true,
    legalComments: 'none',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  await writeFile(snapshotEntryOf(outfile), result.outputFiles[0].contents);
  await writeFile(startScriptOf(outfile), startScript());
  await chmod(startScriptOf(outfile), 0o755);
  return Object.keys(result.metafile.inputs);
}

/**
 * Builds the blob of the bundle beside `outfile` (the launcher) with `node` and `flags`, then its
 * record. Written under a temporary name and renamed, and the record after it: a start never sees a
 * half-written blob named by a record. Throws with the builder's output when node cannot build it.
 */
export async function makeSnapshot({ outfile, node = process.execPath, flags = SNAPSHOT_NODE_FLAGS, blob = blobOf(outfile) }) {
  const temp = `${blob}.${process.pid}.tmp`;
  const record = `${blob}.made`;
  await rm(record, { force: true });
  try {
    await run(node, [...flags, '--snapshot-blob', temp, '--build-snapshot', snapshotEntryOf(outfile), join(dirname(outfile), basenameOfBundle(outfile)), outfile], { cwd: dirname(outfile), maxBuffer: 16 << 20 });
    await rename(temp, blob);
  } catch (error) {
    await rm(temp, { force: true });
    throw new Error(`startup snapshot of ${outfile}: ${error.stderr?.trim() || error.message}`);
  }
  // `stat` as the start script runs it, so the two compare the same text
  const { stdout } = await run('stat', ['-L', '-c', STAT_FORMAT, '--', node, blob]);
  await writeFile(record, `${stdout}${flags.join(' ')}\n`);
  return { blob, record };
}

/** bundleFileOf (build/build.mjs) without importing it: build.mjs imports this file. */
const basenameOfBundle = (outfile) => `${outfile.replace(/\.mjs$/, '').replace(/^.*\//, '')}.bundle.cjs`;
