// Moves an earlier release's Let's Encrypt lineages out of Debian's certbot directories (an earlier
// installer gave all of /etc/letsencrypt to the panel's user and issued there) into the panel's own
// (config.acme), so that /etc/letsencrypt can go back to root and the operator with nothing of the
// panel's left in it for root's certbot to read or run.
//
// It runs AS THE PANEL'S USER (the installer starts it in a child process as that user): both
// directories are that user's, so it crosses no privilege boundary and plain fs calls are right.
// It refuses to run as anyone but the owner of both directories, root included.
//
// A lineage is the panel's when its renewal configuration's renew_hook (certbot's stored deploy
// hook) is the root helper's launcher asking for an nginx reload (`…/relay-panel-root nginx-reload`,
// reloadNginxCommand in certs.ts), or one of the hooks the caller names; every other lineage is the
// operator's and stays. For each of the panel's: the account its configuration names is copied,
// archive/<name>/ copied, live/<name>/ made again with certbot's relative links to the highest
// version, renewal/<name>.conf written last with its paths moved to the new directories; then the
// copy is checked against what is still in the old directory, and only then is the old lineage
// removed (live, archive, its configuration last). A run stopped anywhere finishes on the next
// one; a second run moves nothing.
import { lstat, mkdir, open, readdir, readlink, rename, rm, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { DEPLOY_HOOK_NAME } from '../system/certs/host.ts';
import { writeFileAtomic } from '../system/common/atomic-write.ts';
import { SystemError } from '../system/types.ts';
import { isRootHelperReloadHook, renewalHooks, renewalPaths, renewalSection, rewriteRenewalPaths, type PathMove } from '../system/certs/renewal-conf.ts';
import { NO_FOLLOW_NO_BLOCK } from '../system/common/fs.ts';

/** certbot's four directories as the configuration names them (config.acme). */
export interface AcmeDirs {
  configDir: string;
  workDir: string;
  logsDir: string;
  webroot: string;
}

export interface AcmeMoveOptions {
  /** the earlier release's directories (its stored configuration's acme section) */
  from: AcmeDirs;
  /** this release's (config.acme) */
  to: AcmeDirs;
  /** renew_hook values that also mark a lineage as the panel's (exact text), beside the root helper's launcher */
  panelHooks?: readonly string[];
}

export interface LeftLineage {
  name: string;
  /** why it stays in the old directory */
  reason: string;
  /** its pre/deploy/post hooks: root's certbot runs them once the directory is root's again */
  hooks: string[];
  /** the paths it names inside the panel's new directories: root's certbot would read and write there */
  intoPanelDirs: string[];
}

export interface AcmeMoveReport {
  /** lineages this run moved (or finished moving) into the new directory */
  moved: string[];
  /** lineages that stay in the old directory: the operator's, and any of the panel's that could not be moved safely */
  left: LeftLineage[];
  /** account directories copied, relative to accounts/ (never removed from the old directory: an operator's lineage may share one) */
  accounts: string[];
  /** the panel's global deploy hook in the old renewal-hooks/deploy: moved, removed (not a regular file) or absent */
  deployHook: 'moved' | 'removed' | 'absent';
  /** files in the old keys/ holding a private key of a lineage now in the new directory, removed */
  keysRemoved: string[];
  /** what else is in the old renewal-hooks/{pre,deploy,post}: the operator's, or planted; root's certbot runs them */
  otherHooks: string[];
}

const absolute = z.string().min(2).max(4096).refine((p) => p.startsWith('/') && !p.split('/').includes('..') && !p.endsWith('/'), 'must be an absolute path without .. or a trailing /');
const DirsSchema = z.strictObject({ configDir: absolute, workDir: absolute, logsDir: absolute, webroot: absolute });

/**
 * The options as the installer hands them to the child process it runs as the panel's user (JSON
 * on its stdin or argv): checked, since that process acts on them.
 */
export function parseAcmeMoveOptions(input: unknown): AcmeMoveOptions {
  return z.strictObject({ from: DirsSchema, to: DirsSchema, panelHooks: z.array(z.string().min(1).max(4096)).max(16).optional() }).parse(input);
}

const KINDS = ['cert', 'chain', 'fullchain', 'privkey'] as const;
const ARCHIVE_FILE = /^(cert|chain|fullchain|privkey)([1-9][0-9]*)\.pem$/;
const LINEAGE_CONF = /^([A-Za-z0-9][A-Za-z0-9._-]*)\.conf$/;
const MAX_FILE = 1024 * 1024;

class Refused extends Error {}

/** A regular file's bytes and mode, never through a link, never blocking on a FIFO. */
async function readRegular(path: string): Promise<{ data: Buffer; mode: number }> {
  let handle;
  try {
    handle = await open(path, NO_FOLLOW_NO_BLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new Refused(`${path} is a symbolic link`);
    throw e;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Refused(`${path} is not a regular file`);
    if (st.size > MAX_FILE) throw new Refused(`${path} is larger than ${MAX_FILE} bytes`);
    return { data: await handle.readFile(), mode: st.mode & 0o777 };
  } finally {
    await handle.close();
  }
}

const kind = async (path: string) => {
  const st = await lstat(path).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : Promise.reject(e)));
  return !st ? 'absent' : st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
};

async function ensureDir(path: string, mode: number): Promise<void> {
  await mkdir(path, { recursive: true, mode });
  if ((await kind(path)) !== 'dir') throw new Refused(`${path} is not a directory`);
}

/** Only as the owner of both directories: never root over the panel's files, never across users. */
async function checkOwner(dir: string, create: boolean): Promise<boolean> {
  const uid = process.geteuid?.() ?? -1;
  let st = await lstat(dir).catch(() => null);
  if (!st && create) {
    await mkdir(dir, { recursive: true, mode: 0o750 });
    st = await lstat(dir);
  }
  if (!st) return false;
  if (!st.isDirectory()) throw new SystemError(`${dir} is not a directory`);
  if (st.uid !== uid) throw new SystemError(`the move of the panel's lineages runs as the owner of ${dir} (uid ${st.uid}), not as uid ${uid}`);
  return true;
}

/** certbot's latest_common_version: the highest version every one of the four files has. */
export function latestCommonVersion(files: readonly string[]): number | null {
  const versions = KINDS.map((k) => new Set(files.map((f) => ARCHIVE_FILE.exec(f)).filter((m) => m?.[1] === k).map((m) => Number(m![2]))));
  const common = [...versions[0]!].filter((v) => versions.every((set) => set.has(v)));
  return common.length ? Math.max(...common) : null;
}

export async function moveLegacyLineages(o: AcmeMoveOptions): Promise<AcmeMoveReport> {
  const report: AcmeMoveReport = { moved: [], left: [], accounts: [], deployHook: 'absent', keysRemoved: [], otherHooks: [] };
  const old = o.from.configDir;
  const neu = o.to.configDir;
  if (old === neu || !(await checkOwner(old, false))) return report;
  await checkOwner(neu, true);

  const moves: PathMove[] = [[o.from.configDir, o.to.configDir], [o.from.workDir, o.to.workDir], [o.from.logsDir, o.to.logsDir], [o.from.webroot, o.to.webroot]];
  const newDirs = [o.to.configDir, o.to.workDir, o.to.logsDir, o.to.webroot];
  const isPanelHook = (hook: string | undefined) => !!hook && (isRootHelperReloadHook(hook) || (o.panelHooks ?? []).includes(hook));

  const confs = (await kind(join(old, 'renewal'))) === 'dir' ? (await readdir(join(old, 'renewal'))).sort() : [];
  for (const file of confs) {
    const name = LINEAGE_CONF.exec(file)?.[1];
    if (!name) continue;
    let text: string;
    try {
      text = (await readRegular(join(old, 'renewal', file))).data.toString('utf8');
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      report.left.push({ name, reason: e.message, hooks: [], intoPanelDirs: [] });
      continue;
    }
    const hooks = renewalHooks(text);
    const intoPanelDirs = renewalPaths(text).filter((p) => newDirs.some((d) => p === d || p.startsWith(`${d}/`)));
    if (!isPanelHook(renewalSection(text, 'renewalparams').renew_hook)) {
      report.left.push({ name, reason: 'not the panel\'s: its renewal configuration names no deploy hook of the panel', hooks, intoPanelDirs });
      continue;
    }
    try {
      await moveLineage(o, moves, name, text, report);
      report.moved.push(name);
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      report.left.push({ name, reason: e.message, hooks, intoPanelDirs });
    }
  }

  report.accounts = [...new Set(report.accounts)];
  report.deployHook = await moveDeployHook(old, neu);
  report.keysRemoved = await removeMovedKeys(old, neu);
  for (const stage of ['pre', 'deploy', 'post']) {
    const dir = join(old, 'renewal-hooks', stage);
    if ((await kind(dir)) === 'dir') report.otherHooks.push(...(await readdir(dir)).sort().map((f) => join(dir, f)));
  }
  return report;
}

async function moveLineage(o: AcmeMoveOptions, moves: PathMove[], name: string, text: string, report: AcmeMoveReport): Promise<void> {
  const old = o.from.configDir;
  const neu = o.to.configDir;
  const oldArchive = join(old, 'archive', name);
  const newArchive = join(neu, 'archive', name);
  const newConf = join(neu, 'renewal', `${name}.conf`);

  const top = renewalSection(text, '');
  if ((top.archive_dir ?? oldArchive) !== oldArchive) throw new Refused(`its archive_dir ${top.archive_dir} is not ${oldArchive}`);
  for (const k of KINDS) {
    const expected = join(old, 'live', name, `${k}.pem`);
    if (top[k] !== expected) throw new Refused(`its ${k} is ${top[k] ?? 'not named'}, not ${expected}`);
  }
  const oldFiles = await archiveFiles(oldArchive);

  // a configuration in the new directory means the copy was made (and maybe used) before: the old
  // lineage only needs its check and removal
  if ((await kind(newConf)) !== 'file') {
    if (oldFiles.length === 0) throw new Refused(`${oldArchive} holds no certificate`);
    const version = latestCommonVersion(oldFiles);
    if (version === null) throw new Refused(`${oldArchive} has no version with all of ${KINDS.join(', ')}`);
    const account = renewalSection(text, 'renewalparams').account;
    if (account) report.accounts.push(...(await copyAccount(old, neu, account)));

    try {
      await ensureDir(join(neu, 'archive'), 0o700);
      await ensureDir(newArchive, 0o755);
      for (const f of oldFiles) {
        const { data, mode } = await readRegular(join(oldArchive, f));
        await writeFileAtomic(join(newArchive, f), data, mode);
      }
      await makeLive(old, neu, name, version);
      // last: certbot knows a lineage by its configuration, so until here the copy is invisible to it
      await writeFileAtomic(newConf, rewriteRenewalPaths(text, moves), 0o644);
    } catch (e) {
      // a half copy would stop certbot from issuing this name in the new directory ("archive directory exists")
      if ((await kind(newConf)) === 'absent') {
        await rm(join(neu, 'live', name), { recursive: true, force: true });
        await rm(newArchive, { recursive: true, force: true });
      }
      throw e;
    }
  }

  await verifyCopy(name, oldArchive, oldFiles, newArchive, join(neu, 'live', name));
  // the old configuration last: while it is there, the next run knows the rest is the panel's
  await rm(join(old, 'live', name), { recursive: true, force: true });
  await rm(oldArchive, { recursive: true, force: true });
  await unlink(join(old, 'renewal', `${name}.conf`));
}

/** The archive's certificate files; anything else in it (a link, a directory, another name) stops the move. */
async function archiveFiles(dir: string): Promise<string[]> {
  const what = await kind(dir);
  if (what === 'absent') return [];
  if (what !== 'dir') throw new Refused(`${dir} is not a directory`);
  const names = (await readdir(dir)).sort();
  for (const f of names) {
    if (!ARCHIVE_FILE.test(f) || (await kind(join(dir, f))) !== 'file') throw new Refused(`${join(dir, f)} is not one of certbot's archive files`);
  }
  return names;
}

/** live/<name>/ as certbot makes it: relative links into the archive, and its README; built aside, renamed in. */
async function makeLive(old: string, neu: string, name: string, version: number): Promise<void> {
  const live = join(neu, 'live');
  await ensureDir(live, 0o700);
  const building = join(live, `.${name}.relay-panel-move`);
  await rm(building, { recursive: true, force: true });
  await mkdir(building, { mode: 0o755 });
  for (const k of KINDS) await symlink(`../../archive/${name}/${k}${version}.pem`, join(building, `${k}.pem`));
  const readme = join(old, 'live', name, 'README');
  if ((await kind(readme)) === 'file') {
    const { data, mode } = await readRegular(readme);
    await writeFileAtomic(join(building, 'README'), data, mode);
  }
  await rm(join(live, name), { recursive: true, force: true });
  await rename(building, join(live, name));
}

/** Every file still in the old archive has its twin in the new one, and each live link finds its file there. */
async function verifyCopy(name: string, oldArchive: string, oldFiles: string[], newArchive: string, newLive: string): Promise<void> {
  for (const f of oldFiles) {
    const before = (await readRegular(join(oldArchive, f))).data;
    const after = await readRegular(join(newArchive, f)).then((r) => r.data, () => null);
    if (!after || !before.equals(after)) throw new Refused(`${join(newArchive, f)} is not the copy of ${join(oldArchive, f)} (a lineage of that name already in the new directory?)`);
  }
  for (const k of KINDS) {
    const link = join(newLive, `${k}.pem`);
    const target = await readlink(link).catch(() => '');
    const file = target.slice(`../../archive/${name}/`.length);
    const ok = target.startsWith(`../../archive/${name}/`) && ARCHIVE_FILE.exec(file)?.[1] === k && (await kind(join(newArchive, file))) === 'file';
    if (!ok) throw new Refused(`${link} does not lead into ${newArchive}`);
  }
}

/**
 * The account a lineage renews with: its directories (one per server path, accounts/<server>/<id>)
 * copied file by file where the new directory has no such file yet. Links are not followed.
 */
async function copyAccount(old: string, neu: string, id: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (rel: string, depth: number): Promise<void> => {
    for (const entry of await readdir(join(old, 'accounts', rel)).catch(() => [] as string[])) {
      const sub = rel ? join(rel, entry) : entry;
      if ((await kind(join(old, 'accounts', sub))) !== 'dir') continue;
      if (entry === id && (await kind(join(old, 'accounts', sub, 'regr.json'))) === 'file') found.push(sub);
      else if (depth < 4) await walk(sub, depth + 1);
    }
  };
  await walk('', 0);
  if (found.length === 0 && !(await accountIn(neu, id))) throw new Refused(`its account ${id} is in neither accounts/ directory`);
  const copied: string[] = [];
  for (const rel of found) {
    const from = join(old, 'accounts', rel);
    const to = join(neu, 'accounts', rel);
    await ensureDir(join(neu, 'accounts'), 0o700);
    await ensureDir(to, 0o700);
    for (const f of (await readdir(from)).sort()) {
      if ((await kind(join(from, f))) !== 'file' || (await kind(join(to, f))) !== 'absent') continue;
      const { data, mode } = await readRegular(join(from, f));
      await writeFileAtomic(join(to, f), data, mode);
    }
    copied.push(rel);
  }
  return copied;
}

async function accountIn(configDir: string, id: string): Promise<boolean> {
  const walk = async (dir: string, depth: number): Promise<boolean> => {
    for (const entry of await readdir(dir).catch(() => [] as string[])) {
      if ((await kind(join(dir, entry))) !== 'dir') continue;
      if (entry === id || (depth < 4 && (await walk(join(dir, entry), depth + 1)))) return true;
    }
    return false;
  };
  return walk(join(configDir, 'accounts'), 0);
}

/**
 * The panel's global deploy hook leaves the old directory whatever it is (root's certbot would run
 * it); a regular file is kept in the new one when that has none yet (setupAutoRenew writes it anyway).
 */
async function moveDeployHook(old: string, neu: string): Promise<AcmeMoveReport['deployHook']> {
  const from = join(old, 'renewal-hooks', 'deploy', DEPLOY_HOOK_NAME);
  const what = await kind(from);
  if (what === 'absent') return 'absent';
  if (what === 'file') {
    const to = join(neu, 'renewal-hooks', 'deploy', DEPLOY_HOOK_NAME);
    if ((await kind(to)) === 'absent') {
      const { data } = await readRegular(from);
      await writeFileAtomic(to, data, 0o755);
    }
  }
  await rm(from, { recursive: true, force: true });
  return what === 'file' ? 'moved' : 'removed';
}

/** certbot also keeps each new key in keys/NNNN_key-certbot.pem: those of the panel's lineages go. */
async function removeMovedKeys(old: string, neu: string): Promise<string[]> {
  const keysDir = join(old, 'keys');
  if ((await kind(keysDir)) !== 'dir') return [];
  const panelKeys: Buffer[] = [];
  for (const name of await readdir(join(neu, 'archive')).catch(() => [] as string[])) {
    const dir = join(neu, 'archive', name);
    for (const f of await readdir(dir).catch(() => [] as string[])) {
      if (f.startsWith('privkey')) panelKeys.push(await readRegular(join(dir, f)).then((r) => r.data, () => Buffer.alloc(0)));
    }
  }
  const removed: string[] = [];
  for (const f of (await readdir(keysDir)).sort()) {
    const path = join(keysDir, f);
    const data = await readRegular(path).then((r) => r.data, () => null);
    if (data && data.length > 0 && panelKeys.some((k) => k.equals(data))) {
      await unlink(path);
      removed.push(path);
    }
  }
  return removed;
}
