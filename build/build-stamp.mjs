// What the last build was made from: each input file's size, mtime and SHA-256, in a stamp beside
// the outputs. `npm start` builds again only when an input differs, so a start with nothing changed
// skips the bundling (most of a start on a busy machine). A file whose mtime or size changed is
// hashed: a checkout that touches a file without changing it builds nothing. An executable the
// package manager replaces (the node binary) is stamped by what `stat` says of it instead (device,
// inode, size, modification and change time, as the startup snapshot's record names it): hashing
// the 99 MB binary cost about 160 ms of CPU a build, and a reinstall that keeps its bytes gives it a
// new inode, which the snapshot's record (and so the start script) already counts as another node.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';

const sha256 = async (file) => createHash('sha256').update(await readFile(file)).digest('hex');

/** The fields of a file stamped by stat alone. */
const statKey = ({ dev, ino, size, mtimeMs, ctimeMs }) => ({ dev, ino, size, mtimeMs, ctimeMs });

/**
 * The stamp of `files` (absolute paths): relative path -> {size, mtimeMs, sha256}, or the stat key
 * for the files of `byStat`.
 */
export async function stampOf(root, files, { byStat = [] } = {}) {
  const statOnly = new Set(byStat);
  const entries = await Promise.all(
    [...new Set([...files, ...byStat])].sort().map(async (file) => {
      const now = await stat(file);
      return [relative(root, file), statOnly.has(file) ? statKey(now) : { size: now.size, mtimeMs: now.mtimeMs, sha256: await sha256(file) }];
    }),
  );
  return { version: 1, inputs: Object.fromEntries(entries) };
}

export async function writeStamp(stampFile, root, files, options = {}) {
  await writeFile(stampFile, `${JSON.stringify(await stampOf(root, files, options), null, 1)}\n`);
}

/**
 * Why a build is needed, or null when every output exists and every input the stamp lists is as
 * it was (same size and mtime, or else the same content).
 */
export async function whyBuild(stampFile, root, outputs) {
  const stamp = await readFile(stampFile, 'utf8').then(JSON.parse, () => null);
  if (stamp?.version !== 1) return 'no stamp of a previous build';
  const absent = outputs.find((file) => !existsSync(file));
  if (absent) return `${relative(root, absent)} is missing`;
  // all at once: several hundred inputs, each a stat and rarely a hash
  const reasons = await Promise.all(
    Object.entries(stamp.inputs).map(async ([path, was]) => {
      const file = resolve(root, path);
      const now = await stat(file).catch(() => null);
      if (!now) return `${path} is gone`;
      if (was.sha256 === undefined) return JSON.stringify(statKey(now)) === JSON.stringify(statKey(was)) ? null : `${path} changed (replaced or rewritten)`;
      if (now.size === was.size && now.mtimeMs === was.mtimeMs) return null;
      return now.size !== was.size || (await sha256(file)) !== was.sha256 ? `${path} changed` : null;
    }),
  );
  return reasons.find((reason) => reason !== null) ?? null;
}
