// A V8 startup snapshot of the server bundle's evaluation (lib/snapshot-entry.ts), beside the
// launcher: server.snapshot.blob, and server-start, the shell script that starts from it. The
// files, the record and the start script are lib/startup-snapshot.mjs's, which the installer's
// snapshot step (lib/install/steps/snapshot.ts) uses too. A blob made for another bundle is caught
// later, in the start itself.
import { execFile } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as snapshot from '../lib/startup-snapshot.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

/** lib/node-flags.ts's, which a plain-JS build script cannot import (test/unit/build/node-flags.test.ts keeps them in step). */
export const SNAPSHOT_NODE_FLAGS = ['--max-semi-space-size=4'];

export const snapshotEntryOf = (outfile) => snapshot.snapshotFiles(outfile).entry;
export const blobOf = (outfile) => snapshot.snapshotFiles(outfile).blob;
export const startScriptOf = (outfile) => snapshot.snapshotFiles(outfile).startScript;
/** The start script the build writes beside the launcher. */
export const startScript = () => snapshot.startScript(SNAPSHOT_NODE_FLAGS);

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
 * record (lib/startup-snapshot.mjs). Throws with the builder's output when node cannot build it.
 */
export async function makeSnapshot({ outfile, node = process.execPath, flags = SNAPSHOT_NODE_FLAGS, blob = blobOf(outfile) }) {
  const runHere = (file, args) => run(file, args, { cwd: snapshot.snapshotFiles(outfile).dir, maxBuffer: 16 << 20 });
  try {
    return await snapshot.makeSnapshot({ launcher: outfile, node, flags, blob, run: runHere });
  } catch (error) {
    throw new Error(`startup snapshot of ${outfile}: ${error.stderr?.trim() || error.message}`);
  }
}
