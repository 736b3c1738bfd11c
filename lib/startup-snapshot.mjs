// The V8 startup snapshot's files, the record beside its blob, the builder's command line and the
// start script that reads the record. A checkout's build (build/snapshot.mjs, plain node) and an
// installation (lib/install/steps/snapshot.ts, on the box) both make a blob and its record, and the
// start script must read what either wrote: one plain-JS module, so that both can import it.
//
// A blob is tied to the node binary and the V8 flags it was made with: node refuses any other before
// a line of JavaScript runs (exit code 14, or an abort for a damaged file), so the choice is the start
// script's. It starts from the blob only when the record beside it names this node binary and this
// blob as `stat` sees them now, and these flags; otherwise through the launcher and its code cache.
import { access, chmod, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CODE_CACHE_TAKEN, REHEARSE_COMMAND, rehearsalCacheFile } from './rehearsal-names.mjs';

/** device, inode, size, modification and change time: a replaced or rewritten file differs in one */
export const STAT_FORMAT = '%d:%i:%s:%Y:%Z';

/** The names beside the launcher; the start script expects the launcher to be `server.mjs`. */
export const LAUNCHER_NAME = 'server.mjs';
const ENTRY_NAME = 'server.snapshot.cjs';
const BLOB_NAME = 'server.snapshot.blob';
const START_SCRIPT_NAME = 'server-start';
const RECORD_SUFFIX = '.made';

/** The bundle the launcher runs: beside it, `server.mjs` -> `server.bundle.cjs`. */
export const bundleOf = (launcher) => `${launcher.replace(/\.mjs$/, '')}.bundle.cjs`;

/** The snapshot's files beside `launcher`: the builder's entry, the blob, its record and the start script. */
export function snapshotFiles(launcher) {
  const dir = dirname(launcher);
  const blob = join(dir, BLOB_NAME);
  return { dir, entry: join(dir, ENTRY_NAME), blob, record: recordOf(blob), startScript: join(dir, START_SCRIPT_NAME) };
}

const recordOf = (blob) => `${blob}${RECORD_SUFFIX}`;

/** `stat`'s arguments for the record: node's binary and the blob, followed through links as node opens them. */
export const statArgs = (node, blob) => ['-L', '-c', STAT_FORMAT, '--', node, blob];

/** The record: `stat`'s two lines (node, blob), then the flags on a third. */
export const recordText = (statOutput, flags) => `${statOutput}${flags.join(' ')}\n`;

/**
 * A rehearsal start of the launcher (lib/rehearsal.ts) in a new directory only this user may enter,
 * beside the launcher: in the release, which is root's on a box, and not in TMPDIR, which a caller's
 * environment may point at a directory where another user could swap root's for one of theirs.
 * Its code cache, or why there is none. The caller removes `dir`.
 */
async function rehearse({ launcher, node, flags, run }) {
  const dir = await mkdtemp(join(dirname(launcher), '.relay-rehearsal-'));
  try {
    await run(node, [...flags, launcher, REHEARSE_COMMAND, dir]);
  } catch (error) {
    return { dir, cache: null, why: `the rehearsal start failed: ${(error.stderr?.trim() || error.message).split('\n').at(-1)}` };
  }
  const cache = rehearsalCacheFile(dir);
  return (await access(cache).then(() => true, () => false)) ? { dir, cache } : { dir, cache: null, why: 'the rehearsal start wrote no code cache' };
}

/** makeSnapshot's `codeCache` when the blob holds the code a rehearsal start compiled. */
export const CODE_CACHE_TAKEN_INTO_BLOB = 'taken';

/** What a build or the install step says of that, after the blob's name. */
export function codeCacheNote(codeCache) {
  return codeCache === CODE_CACHE_TAKEN_INTO_BLOB ? ', with the code a rehearsal start compiled' : `; without a rehearsal start's code (${codeCache}), so its starts compile more`;
}

/**
 * Builds the blob of the bundle beside `launcher` with `node` and `flags`, then its record. Written
 * under a temporary name and renamed, and the record after it: a start never sees a half-written
 * blob named by a record. `run(file, args)` resolves with the program's output and rejects when it
 * fails; a failure leaves no blob's temporary file and no record.
 *
 * First a rehearsal start of the same launcher, node and flags, whose code cache the builder compiles
 * the bundle with: the functions a start runs are then in the blob compiled (configuration, store and
 * compose of an empty box's start: 31 against 18 ms of CPU). Without it (`codeCache` says why) the blob still works.
 */
export async function makeSnapshot({ launcher, node, flags, run, stat = 'stat', blob = snapshotFiles(launcher).blob }) {
  const { entry } = snapshotFiles(launcher);
  const record = recordOf(blob);
  const temp = `${blob}.${process.pid}.tmp`;
  await rm(record, { force: true });
  const rehearsal = await rehearse({ launcher, node, flags, run });
  let codeCache;
  try {
    const { stdout } = await run(node, [...flags, '--snapshot-blob', temp, '--build-snapshot', entry, bundleOf(launcher), launcher, ...(rehearsal.cache ? [rehearsal.cache] : [])]);
    codeCache = rehearsal.cache === null ? rehearsal.why : `${stdout}`.includes(CODE_CACHE_TAKEN) ? CODE_CACHE_TAKEN_INTO_BLOB : 'the builder refused the rehearsal start\'s code cache';
    // the panel's user reads both: not whatever root's umask would leave of them (before the stat below: chmod moves ctime)
    await chmod(temp, 0o644);
    await rename(temp, blob);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    await rm(rehearsal.dir, { recursive: true, force: true });
  }
  // `stat` as the start script runs it, so the two compare the same text
  const { stdout } = await run(stat, statArgs(node, blob));
  await writeFile(record, recordText(stdout, flags));
  await chmod(record, 0o644);
  return { blob, record, codeCache };
}

/**
 * The start script. `node` is RELAY_PANEL_NODE or the first on PATH, as for the release launcher;
 * the blob is RELAY_PANEL_SNAPSHOT or server.snapshot.blob beside it.
 */
export const startScript = (flags) => `#!/bin/sh
# relay-panel server start (lib/startup-snapshot.mjs): ${START_SCRIPT_NAME} [--config FILE] ...
# From the V8 startup snapshot when its record names this node binary, this blob and these flags;
# otherwise through ${LAUNCHER_NAME} and its code cache. One \`stat\` decides: node itself would refuse a
# blob made by another binary or with other flags, and exit before the panel could fall back.
case "$0" in */*) here=\${0%/*} ;; *) here=. ;; esac
node=\${RELAY_PANEL_NODE:-$(command -v node)}
if [ -z "$node" ]; then
  echo "relay-panel needs Node.js 20 or later: see README 'Production'" >&2
  exit 1
fi
blob=\${RELAY_PANEL_SNAPSHOT:-$here/${BLOB_NAME}}
flags='${flags.join(' ')}'
if [ -r "$blob${RECORD_SUFFIX}" ] && { read -r made_node && read -r made_blob && read -r made_flags; } < "$blob${RECORD_SUFFIX}" \\
  && [ "$made_node
$made_blob
$made_flags" = "$(stat ${statArgs('"$node"', '"$blob"').map((a) => (a === STAT_FORMAT ? `'${a}'` : a)).join(' ')} 2>/dev/null)
$flags" ]; then
  exec "$node" $flags --snapshot-blob "$blob" "$here/${LAUNCHER_NAME}" "$@"
fi
exec "$node" $flags "$here/${LAUNCHER_NAME}" "$@"
`;
