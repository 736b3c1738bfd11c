// The snapshot step: the V8 startup snapshot of the current release's bundle, made in the release by
// the node the unit runs (build/snapshot.mjs makes the same for a checkout's dist/). A release carries
// only its builder entry: a blob is tied to one node binary and its flags, so it is made on the box.
// The unit starts the panel through the release's server-start, which uses the blob only while the
// record beside it names that node, that blob and those flags; after a node upgrade the panel starts
// through its code cache again until the next install or upgrade makes the blob anew.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathExists } from '../../system/common/fs.ts';
import { NODE_FLAGS } from '../../node-flags.ts';
import type { Installation } from '../installation.ts';
import type { Outcome } from './step.ts';

/** build/snapshot.mjs's, which the start script compares (test/unit/install/snapshot-record.test.ts keeps them in step). */
export const SNAPSHOT_STAT_FORMAT = '%d:%i:%s:%Y:%Z';
const STAT = '/usr/bin/stat';

/** The record server-start compares: `stat` of the node binary and of the blob, then the flags. */
async function recordNow(inst: Installation, blob: string): Promise<string | null> {
  const { stdout, exitCode } = await inst.run(STAT, ['-L', '-c', SNAPSHOT_STAT_FORMAT, '--', inst.options.node, blob], [0, 1]);
  return exitCode === 0 ? `${stdout}${NODE_FLAGS.join(' ')}\n` : null;
}

function snapshotFiles(inst: Installation) {
  const dir = inst.layout.current;
  const blob = join(dir, 'server.snapshot.blob');
  return { dir, entry: join(dir, 'server.snapshot.cjs'), blob, record: `${blob}.made` };
}

/** Whether the release has a snapshot entry, and whether its blob's record names this node, this blob and the flags. */
async function snapshotState(inst: Installation): Promise<'no entry' | 'fresh' | 'missing' | 'stale'> {
  const { entry, blob, record } = snapshotFiles(inst);
  if (!(await pathExists(entry))) return 'no entry';
  const made = await readFile(record, 'utf8').catch(() => null);
  if (made === null) return 'missing';
  return made === (await recordNow(inst, blob)) ? 'fresh' : 'stale';
}

/** doctor's finding: a start without the snapshot works, only slower, so this names the fix. */
export async function snapshotFinding(inst: Installation): Promise<{ ok: boolean; message: string; fix: string }> {
  const { dir, blob } = snapshotFiles(inst);
  const state = await snapshotState(inst);
  const fix = 'relay-panel install makes it again (a second run keeps everything else); so does the next upgrade';
  if (state === 'no entry') return { ok: true, message: `${dir} has no startup snapshot entry: the panel starts through its code cache`, fix };
  if (state === 'fresh') return { ok: true, message: `the panel starts from its startup snapshot ${blob}, made by ${inst.options.node}`, fix };
  const why = state === 'missing' ? `no startup snapshot in ${dir}` : `${blob} was made by another node binary or with other flags than ${inst.options.node} now (Node upgraded since?)`;
  return { ok: false, message: `${why}: the panel starts through its code cache, slower`, fix };
}

export async function snapshot(inst: Installation): Promise<Outcome> {
  const { dir, entry, blob, record } = snapshotFiles(inst);
  const state = await snapshotState(inst);
  if (state === 'no entry') return { status: 'done', message: `${dir} has no startup snapshot entry: the panel starts through its code cache` };
  if (state === 'fresh') return { status: 'done', message: `startup snapshot ${blob} kept (made by ${inst.options.node})` };
  const temp = `${blob}.${process.pid}.tmp`;
  try {
    await rm(record, { force: true });
    await inst.run(inst.options.node, [...NODE_FLAGS, '--snapshot-blob', temp, '--build-snapshot', entry, join(dir, 'server.bundle.cjs'), join(dir, 'server.mjs')]);
    await rename(temp, blob);
    const now = await recordNow(inst, blob);
    if (now === null) throw new Error(`${STAT} could not read ${blob}`);
    await writeFile(record, now, { mode: 0o644 });
  } catch (error) {
    await rm(temp, { force: true });
    return {
      status: 'warning',
      message: `no startup snapshot (the panel starts through its code cache): ${(error as Error).message.split('\n')[0]}`,
      fix: 'run the upgrade or install again; a start without the snapshot only takes longer',
    };
  }
  return { status: 'changed', message: `startup snapshot ${blob} made by ${inst.options.node}` };
}
