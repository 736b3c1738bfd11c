// The snapshot step: the V8 startup snapshot of the current release's bundle, made in the release by
// the node the unit runs (build/snapshot.mjs makes the same for a checkout's dist/; both through
// lib/startup-snapshot.mjs). A release carries only its builder entry: a blob is tied to one node
// binary and its flags, so it is made on the box. The unit starts the panel through the release's
// server-start, which uses the blob only while the record beside it names that node, that blob and
// those flags; after a node upgrade the panel starts through its code cache again until the next
// install or upgrade makes the blob anew. The blob is made after a rehearsal start of the release as
// root, on a throwaway sandbox behind a Unix socket in a directory only root may enter (lib/rehearsal.ts).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathExists } from '../../system/common/fs.ts';
import { NODE_FLAGS } from '../../node-flags.ts';
import { codeCacheNote, LAUNCHER_NAME, makeSnapshot, recordText, snapshotFiles as filesBeside, statArgs } from '../../startup-snapshot.mjs';
import type { Installation } from '../installation.ts';
import type { Outcome } from './step.ts';

const STAT = '/usr/bin/stat';

/** The record server-start compares: `stat` of the node binary and of the blob, then the flags. */
async function recordNow(inst: Installation, blob: string): Promise<string | null> {
  const { stdout, exitCode } = await inst.run(STAT, statArgs(inst.options.node, blob), [0, 1]);
  return exitCode === 0 ? recordText(stdout, NODE_FLAGS) : null;
}

const launcherOf = (inst: Installation) => join(inst.layout.current, LAUNCHER_NAME);
const snapshotFiles = (inst: Installation) => filesBeside(launcherOf(inst));

/** Whether the release has a snapshot entry, and whether its blob's record names this node, this blob and the flags. */
async function snapshotState(inst: Installation): Promise<'no entry' | 'fresh' | 'missing' | 'stale'> {
  const { entry, blob, record } = snapshotFiles(inst);
  if (!(await pathExists(entry))) return 'no entry';
  const made = await readFile(record, 'utf8').catch(() => null);
  if (made === null) return 'missing';
  return made === (await recordNow(inst, blob)) ? 'fresh' : 'stale';
}

const noEntry = (dir: string) => `${dir} has no startup snapshot entry: the panel starts through its code cache`;

/** doctor's finding: a start without the snapshot works, only slower, so this names the fix. */
export async function snapshotFinding(inst: Installation): Promise<{ ok: boolean; message: string; fix: string }> {
  const { dir, blob } = snapshotFiles(inst);
  const state = await snapshotState(inst);
  const fix = 'relay-panel install makes it again (a second run keeps everything else); so does the next upgrade';
  if (state === 'no entry') return { ok: true, message: noEntry(dir), fix };
  if (state === 'fresh') return { ok: true, message: `the panel starts from its startup snapshot ${blob}, made by ${inst.options.node}`, fix };
  const why = state === 'missing' ? `no startup snapshot in ${dir}` : `${blob} was made by another node binary or with other flags than ${inst.options.node} now (Node upgraded since?)`;
  return { ok: false, message: `${why}: the panel starts through its code cache, slower`, fix };
}

export async function snapshot(inst: Installation): Promise<Outcome> {
  const { dir, blob } = snapshotFiles(inst);
  const state = await snapshotState(inst);
  if (state === 'no entry') return { status: 'done', message: noEntry(dir) };
  if (state === 'fresh') return { status: 'done', message: `startup snapshot ${blob} kept (made by ${inst.options.node})` };
  let codeCache: string;
  try {
    ({ codeCache } = await makeSnapshot({ launcher: launcherOf(inst), node: inst.options.node, flags: NODE_FLAGS, stat: STAT, run: (file, args) => inst.run(file, args) }));
  } catch (error) {
    return {
      status: 'warning',
      message: `no startup snapshot (the panel starts through its code cache): ${(error as Error).message.split('\n')[0]}`,
      fix: 'run the upgrade or install again; a start without the snapshot only takes longer',
    };
  }
  return { status: 'changed', message: `startup snapshot ${blob} made by ${inst.options.node}${codeCacheNote(codeCache)}` };
}
