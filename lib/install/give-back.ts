// Gives a directory the earlier release had given to the panel's user (Debian's /etc/letsencrypt,
// /var/lib/letsencrypt, /var/log/letsencrypt, chowned to it whole; /var/www/html made
// root:<panel group> 2775) back to root, safely: root's certbot (Debian's certbot.timer) runs over
// what stays, and the panel's user may have planted things there and may race this with a process
// of its own. Runs as root.
//
// Lock, then descend: every directory is opened with O_NOFOLLOW|O_DIRECTORY and, when the panel's
// user can write it, chowned to root and stripped of group/other write and setuid/setgid through
// that descriptor BEFORE its entries are read. From then on nobody but root can add, remove or
// replace an entry in it, and since every directory above it was locked first (the top one's
// parent must be root's alone), a path into it names exactly the entries just listed: by-path
// calls (lstat, rename, lchown) are as safe as openat would be. Nothing is followed: a link is an
// entry like any other, a FIFO is never opened. All directories are locked first (lockTree), and
// only then are the entries dealt with (walkDir), so a racing process has milliseconds, not the
// time of every synced copy, to add entries.
//
// After the walk, each renewal configuration kept is checked against the places it names (they
// must be root's alone: give the work and logs directories and the webroot back first,
// give-back-certbot.ts), and the ACLs of everything made root's are removed (give-back-acl.ts).
//
// What the panel's user owns becomes root's (files as new copies, give-back-copy.ts), except what
// root's certbot would run, obey or follow on its word: hooks, renewal configurations naming hooks
// or places others can write, a cli.ini with more than harmless settings, links other than
// certbot's own live links, FIFOs, sockets, devices, installer checkpoints. Those go to a quarantine
// of root's for the operator to review (give-back-quarantine.ts). What anyone else owns is left
// as it is.
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SystemError } from '../system/types.ts';
import { clearAcls } from './give-back-acl.ts';
import { copyToRoot, readUpTo, TEMP_PREFIX } from './give-back-copy.ts';
import { nodeGiveBackFs, type GiveBackFs } from './give-back-fs.ts';
import { openQuarantine, runName, type Quarantine } from './give-back-quarantine.ts';
import { cliIniHazard, configFileKind, isCertbotLiveLink, quarantineArea, renewalConfHazard, renewalConfPaths, safeMode, type GiveBackKind } from './give-back-rules.ts';
import { rootOnlyPath } from './root-only-path.ts';

export type { GiveBackKind } from './give-back-rules.ts';

export interface GiveBackOptions {
  /** the directory to give back */
  dir: string;
  /** the panel's user and group */
  panel: { uid: number; gid: number };
  /** where what must not stay goes: made root's 0700 when missing; its parent must be root's alone */
  quarantine: string;
  /**
   * certbot-config: a certbot --config-dir (/etc/letsencrypt); certbot-work: a --work-dir
   * (/var/lib/letsencrypt: installer checkpoints); plain: anything else (/var/log/letsencrypt);
   * webroot: a webroot (/var/www/html: the top directory becomes root:root 0755)
   */
  kind: GiveBackKind;
  /** the file-system calls (a test watches their order) */
  fs?: GiveBackFs;
  /** the python3 that removes ACLs (give-back-acl.ts); null: leave ACLs alone */
  python?: string | null;
  /** this run's directory in the quarantine (default: when it runs, 20250101T120000Z); give the same to the calls of one upgrade */
  run?: string;
}

export type EntryType = 'file' | 'directory' | 'link' | 'fifo' | 'socket' | 'device';

export interface QuarantinedEntry {
  /** where it was */
  path: string;
  /** where it is now (<quarantine>/<run>/<path>); null when it was removed instead (a link, FIFO, socket or device, and the quarantine on another file system) */
  to: string | null;
  type: EntryType;
  /** why, for the operator's review */
  reason: string;
  /** a link's text */
  target?: string;
}

export interface GiveBackReport {
  /** the directory, links above it resolved */
  dir: string;
  kind: GiveBackKind;
  /** false: there was no such directory, nothing done */
  present: boolean;
  /** entries of the panel's user (directories also when its group could write them) now root's */
  givenBack: { directories: number; files: number; links: number };
  quarantined: QuarantinedEntry[];
  /** what was left as it is and the operator should know: another user's directory not descended, a file given back in place */
  notes: { path: string; note: string }[];
  /** entries whose ACLs were removed; null when not looked at (no python3) */
  aclsRemoved: number | null;
}

/** How deep and how long a path the walk goes; below, a directory of the panel's goes to quarantine whole. */
const MAX_DEPTH = 24;
const MAX_PATH = 3072;
/** A configuration file larger than this is not one certbot wrote. */
const MAX_CONF = 1024 * 1024;

/**
 * normal: the rules; quarantine: every entry the panel's user can write goes to quarantine (a
 * directory's entries one by one when the quarantine is on another file system); held: entries
 * already in the quarantine, made root's where they are.
 */
type Mode = 'normal' | 'quarantine' | 'held';

interface Ctx {
  o: GiveBackOptions;
  fs: GiveBackFs;
  q: Quarantine;
  report: GiveBackReport;
  /** what became root's: its ACLs go at the end */
  acl: string[];
  /** renewal configurations given back: the places they name are checked once the walk is done */
  confs: string[];
  /** directories this run made root's (dev:ino) */
  locked: Set<string>;
}

const code = (e: unknown) => (e as NodeJS.ErrnoException).code;
const orNull = <T>(p: Promise<T>) => p.catch((e) => (code(e) === 'ENOENT' ? null : Promise.reject(e)));
const same = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino;
const inode = (st: Stats) => `${st.dev}:${st.ino}`;
/** the name of a copy a stopped run left (give-back-copy.ts) */
const LEFT_COPY = new RegExp(`^${TEMP_PREFIX.replace(/\./g, '\\.')}[0-9a-f]{16}$`);

function typeOf(st: Stats): EntryType {
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'link';
  if (st.isFile()) return 'file';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  return 'device';
}

const panelWritableDir = (ctx: Ctx, st: Stats) =>
  st.uid === ctx.o.panel.uid || (st.uid === 0 && st.gid === ctx.o.panel.gid && (st.mode & 0o020) !== 0);

export async function giveBack(o: GiveBackOptions): Promise<GiveBackReport> {
  const fs = o.fs ?? nodeGiveBackFs;
  // root's alone up to the directory (or up to where the path stops: then there is nothing to give back)
  const parent = await rootOnlyPath(dirname(o.dir));
  if ('reason' in parent) throw new SystemError(`${o.dir} is not given back: ${parent.reason}`);
  const dir = join(parent.real, basename(o.dir));
  const report: GiveBackReport = { dir, kind: o.kind, present: false, givenBack: { directories: 0, files: 0, links: 0 }, quarantined: [], notes: [], aclsRemoved: 0 };
  const top = await fs.lstat(dir).catch((e) => (code(e) === 'ENOENT' || code(e) === 'ENOTDIR' ? null : Promise.reject(e)));
  if (!top) return report;
  if (!top.isDirectory()) throw new SystemError(`${dir} is not given back: it is ${top.isSymbolicLink() ? 'a link' : 'not a directory'}`);
  report.present = true;
  const q = await openQuarantine(fs, o.quarantine, dir, o.run ?? runName());
  const ctx: Ctx = { o, fs, q, report, acl: [], confs: [], locked: new Set() };
  // every directory first, then the rest: the panel's user can add entries to a directory only
  // until it is locked, so lock them all before the slow part (copies, each synced) begins
  await lockTree(ctx, dir, top, 0, o.kind === 'webroot' ? 0o755 : undefined);
  await walkDir(ctx, dir, '', top, 'normal', null, 0);
  await checkConfPlaces(ctx);
  report.aclsRemoved = o.python === null ? null : await clearAcls(ctx.acl, o.python);
  if (report.aclsRemoved === null && o.python !== null) report.notes.push({ path: dir, note: 'ACLs not looked at: no python3' });
  return report;
}

/**
 * Opens the directory and, when the panel's user can write it, makes it root's (root:root, the
 * mode less group/other write and setuid/setgid, or `exactMode`) through that descriptor; the
 * chmod before the chown takes write from the ACL mask while the panel still owns it, the one
 * after undoes a chmod the panel's user slipped in between. `locked`: this run made it root's
 * (now or before); `skip`: a directory someone else can write, not descended.
 */
async function lockDir(ctx: Ctx, path: string, seen: Stats, exactMode?: number): Promise<{ locked: boolean } | { skip: string }> {
  const h = await ctx.fs.openDir(path);
  try {
    const st = await ctx.fs.fstat(h);
    if (!same(st, seen)) throw new SystemError(`${path} was replaced while it was given back`);
    if (panelWritableDir(ctx, st)) {
      const mode = exactMode ?? safeMode(st.mode);
      await ctx.fs.fchmod(h, mode);
      await ctx.fs.fchown(h, 0, 0);
      await ctx.fs.fchmod(h, mode);
      const after = await ctx.fs.fstat(h);
      if (after.uid !== 0 || after.gid !== 0 || (after.mode & 0o022) !== 0) throw new SystemError(`${path} could not be made root's`);
      ctx.locked.add(inode(st));
      return { locked: true };
    }
    if (st.uid !== 0) return { skip: `owned by uid ${st.uid}: not descended (not the panel's, and its owner can change it)` };
    if ((st.mode & 0o022) !== 0) return { skip: `writable by ${(st.mode & 0o002) !== 0 ? 'every user' : `group ${st.gid}`}: not descended` };
    return { locked: ctx.locked.has(inode(st)) };
  } finally {
    await h.close();
  }
}

/** Every directory the panel's user can write, locked, top down; nothing else done. */
async function lockTree(ctx: Ctx, path: string, seen: Stats, depth: number, exactMode?: number): Promise<void> {
  if (depth > MAX_DEPTH || path.length > MAX_PATH) return;
  if ('skip' in (await lockDir(ctx, path, seen, exactMode))) return;
  const names = await ctx.fs.readdir(path);
  if (!same(await ctx.fs.lstat(path), seen)) throw new SystemError(`${path} was replaced while it was given back`);
  for (const name of names.sort()) {
    const st = await orNull(ctx.fs.lstat(join(path, name)));
    if (st?.isDirectory()) await lockTree(ctx, join(path, name), st, depth + 1);
  }
}

async function walkDir(ctx: Ctx, path: string, rel: string, seen: Stats, mode: Mode, reason: string | null, depth: number): Promise<void> {
  const lock = await lockDir(ctx, path, seen);
  if ('skip' in lock) {
    ctx.report.notes.push({ path, note: lock.skip });
    return;
  }
  if (lock.locked) {
    ctx.acl.push(path);
    if (mode !== 'held') ctx.report.givenBack.directories++;
  }
  const names = await ctx.fs.readdir(path);
  // still the directory just locked: every directory above it is root's alone
  if (!same(await ctx.fs.lstat(path), seen)) throw new SystemError(`${path} was replaced while it was given back`);
  for (const name of names.sort()) await visit(ctx, join(path, name), rel ? `${rel}/${name}` : name, mode, reason, depth + 1);
}

async function visit(ctx: Ctx, path: string, rel: string, mode: Mode, areaReason: string | null, depth: number): Promise<void> {
  const st = await orNull(ctx.fs.lstat(path));
  if (!st) return;
  if (st.uid === 0 && st.isFile() && LEFT_COPY.test(basename(path))) {
    await ctx.fs.unlink(path); // a copy a stopped run left
    return;
  }
  const reason = mode === 'normal' ? quarantineArea(ctx.o.kind, rel) : mode === 'quarantine' ? areaReason : null;
  if (st.isDirectory()) return visitDir(ctx, path, rel, st, mode, reason, depth);
  if (st.isFile()) return visitFile(ctx, path, rel, st, mode, reason);
  if (st.uid !== ctx.o.panel.uid) return; // another user's link, FIFO, socket or device: left
  if (mode === 'held') return ctx.fs.lchown(path, 0, 0);
  if (st.isSymbolicLink()) {
    const target = await ctx.fs.readlink(path);
    if (!reason && ctx.o.kind === 'certbot-config' && isCertbotLiveLink(rel, target)) {
      await ctx.fs.lchown(path, 0, 0);
      ctx.report.givenBack.links++;
      return;
    }
    return moveAway(ctx, path, st, reason ?? `a link of the panel's user to ${target}: root would follow it`, target);
  }
  const what = st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'a device node';
  return moveAway(ctx, path, st, reason ?? `${what} of the panel's user where root expects files${st.isFIFO() ? ': root reading it would wait forever' : ''}`);
}

async function visitDir(ctx: Ctx, path: string, rel: string, st: Stats, mode: Mode, reason: string | null, depth: number): Promise<void> {
  const tooDeep = depth > MAX_DEPTH || path.length > MAX_PATH;
  if (mode === 'held' && tooDeep) {
    ctx.report.notes.push({ path, note: `deeper than this walk goes: left as it is, inside the quarantine` });
    return;
  }
  // the panel's: it still is, or this run locked it already
  if (mode !== 'held' && (panelWritableDir(ctx, st) || ctx.locked.has(inode(st))) && (reason || tooDeep)) {
    // the whole directory goes: locked first, so what moves is what was judged
    const why = reason ?? `deeper than ${MAX_DEPTH} levels or ${MAX_PATH} characters: root's certbot never makes such a tree`;
    const lock = await lockDir(ctx, path, st);
    if ('skip' in lock) return void ctx.report.notes.push({ path, note: lock.skip });
    const to = await ctx.q.place(path);
    try {
      await ctx.fs.rename(path, to);
    } catch (e) {
      if (code(e) !== 'EXDEV') throw e;
      if (!tooDeep) return quarantineInPlace(ctx, path, rel, st, why, depth);
      return void ctx.report.notes.push({ path, note: `${why}; the quarantine is on another file system, so it stays (root's at its top, the panel's below, where certbot never looks)` });
    }
    ctx.report.quarantined.push({ path, to, type: 'directory', reason: why });
    if (!tooDeep) await walkDir(ctx, to, rel, st, 'held', null, depth);
    return;
  }
  await walkDir(ctx, path, rel, st, mode, reason, depth);
}

/** The quarantine is on another file system: the directory's entries go one by one, then the directory if it is empty. */
async function quarantineInPlace(ctx: Ctx, path: string, rel: string, st: Stats, why: string, depth: number): Promise<void> {
  await walkDir(ctx, path, rel, st, 'quarantine', why, depth);
  const removed = await ctx.fs.rmdir(path).then(() => true, (e) => (code(e) === 'ENOTEMPTY' || code(e) === 'EEXIST' ? false : Promise.reject(e)));
  if (removed) ctx.report.quarantined.push({ path, to: null, type: 'directory', reason: `${why}; its entries went to quarantine one by one (it is on another file system) and the empty directory was removed` });
  else ctx.report.notes.push({ path, note: `${why}; entries of other users are still in it, so it stays (root's now)` });
}

async function visitFile(ctx: Ctx, path: string, rel: string, seen: Stats, mode: Mode, reason: string | null): Promise<void> {
  const panel = ctx.o.panel;
  const owned = seen.uid === panel.uid;
  const writable = owned || (seen.gid === panel.gid && (seen.mode & 0o020) !== 0) || (seen.mode & 0o002) !== 0;
  const conf = mode === 'normal' ? configFileKind(ctx.o.kind, rel) : null;
  // another name for a file elsewhere: with fs.protected_hardlinks=0 the panel's user can link any
  // file of root's on this file system into its directory (a program of root's as a hook)
  const linked = seen.nlink > 1;
  // a file that is not the panel's stays, unless root's certbot would run or obey it and the panel can write it or could have put it there
  if (!owned && (mode === 'held' || !(writable || linked) || !(reason || conf))) {
    if (writable && mode !== 'held') ctx.report.notes.push({ path, note: `not the panel's (uid ${seen.uid}) but writable by ${(seen.mode & 0o002) !== 0 ? 'every user' : "the panel's group"}: left as it is` });
    return;
  }
  let h: FileHandle;
  try {
    h = await ctx.fs.openFile(path);
  } catch (e) {
    if (code(e) !== 'EAGAIN') throw e;
    if (mode === 'held') return void ctx.report.notes.push({ path, note: 'could not be opened without waiting (a lease): left as it is, inside the quarantine' });
    return moveAway(ctx, path, seen, reason ?? "it could not be opened without waiting (a lease held by a process of the panel's user)");
  }
  try {
    const st = await ctx.fs.fstat(h);
    if (!same(st, seen) || !st.isFile()) throw new SystemError(`${path} was replaced while it was given back`);
    let why = reason;
    if (!owned) {
      const how = writable ? `${(st.mode & 0o002) !== 0 ? 'every user' : "the panel's group"} can write it` : `it is a hard link (${st.nlink} names) the panel's user could have made`;
      why = `${reason ?? "root's certbot would read it"}; not the panel's (uid ${st.uid}), but ${how}`;
    }
    let data: Buffer | null = null;
    if (!why && conf) {
      data = await readUpTo(h, MAX_CONF);
      if (!data) why = `larger than ${MAX_CONF} bytes: not a configuration certbot wrote`;
      else why = conf === 'renewal' ? renewalConfHazard(data.toString('utf8')) : cliIniHazard(data.toString('utf8'));
    }
    if (why) return await quarantineFile(ctx, path, h, data, st, why);
    if (await copyToRoot(ctx.fs, data ?? h, st, path)) {
      if (conf === 'renewal') ctx.confs.push(path);
    } else {
      await chownInPlace(ctx, h, st);
      ctx.report.notes.push({ path, note: "too large to copy: made root's in place (a process of the panel's user holding it open could still write it)" });
    }
    if (mode !== 'held') ctx.report.givenBack.files++;
    ctx.acl.push(path);
  } finally {
    await h.close();
  }
}

async function chownInPlace(ctx: Ctx, h: FileHandle, st: Stats): Promise<void> {
  await ctx.fs.fchmod(h, safeMode(st.mode));
  await ctx.fs.fchown(h, 0, 0);
  await ctx.fs.fchmod(h, safeMode(st.mode));
}

/** A regular file to quarantine: a new copy of root's there (of the bytes judged, when read), then the original unlinked. */
async function quarantineFile(ctx: Ctx, path: string, h: FileHandle, data: Buffer | null, st: Stats, reason: string): Promise<void> {
  const to = await ctx.q.place(path);
  if (await copyToRoot(ctx.fs, data ?? h, st, to)) {
    await ctx.fs.unlink(path);
  } else {
    try {
      await ctx.fs.rename(path, to);
      await chownInPlace(ctx, h, st);
    } catch (e) {
      if (code(e) !== 'EXDEV') throw e;
      await ctx.fs.unlink(path);
      ctx.report.quarantined.push({ path, to: null, type: 'file', reason: `${reason}; removed, not moved: too large to copy, and the quarantine is on another file system` });
      return;
    }
  }
  ctx.report.quarantined.push({ path, to, type: 'file', reason });
  ctx.acl.push(to);
}

/** A link, FIFO, socket or device (or a file that cannot be opened) to quarantine: renamed there, never copied. */
async function moveAway(ctx: Ctx, path: string, st: Stats, reason: string, target?: string): Promise<void> {
  const to = await ctx.q.place(path);
  const type = typeOf(st);
  const entry = (where: string | null, why: string): QuarantinedEntry => ({ path, to: where, type, reason: why, ...(target === undefined ? {} : { target }) });
  try {
    await ctx.fs.rename(path, to);
  } catch (e) {
    if (code(e) !== 'EXDEV') throw e;
    await ctx.fs.unlink(path);
    ctx.report.quarantined.push(entry(null, `${reason}; removed, not moved: the quarantine is on another file system`));
    return;
  }
  await ctx.fs.lchown(to, 0, 0);
  ctx.report.quarantined.push(entry(to, reason));
}

/**
 * Every place a renewal configuration given back names must be root's alone by now (this tree,
 * /var/lib/letsencrypt and /var/log/letsencrypt, the webroot, given back before it): root's certbot
 * writes certificates, keys, logs and challenges there. One that names a place another user can
 * change (the panel's own directories included) goes to quarantine.
 */
async function checkConfPlaces(ctx: Ctx): Promise<void> {
  for (const path of ctx.confs) {
    const h = await ctx.fs.openFile(path);
    try {
      const st = await ctx.fs.fstat(h);
      const data = st.isFile() && st.uid === 0 ? await readUpTo(h, MAX_CONF) : null;
      if (!data) throw new SystemError(`${path} changed after it was given back`);
      let why: string | null = null;
      for (const place of renewalConfPaths(data.toString('utf8'))) {
        const r = await rootOnlyPath(place);
        if ('reason' in r) {
          why = `it names ${place}, and ${r.reason}: root's certbot would read or write there`;
          break;
        }
      }
      if (why) {
        await quarantineFile(ctx, path, h, data, st, why);
        ctx.report.givenBack.files--;
      }
    } finally {
      await h.close();
    }
  }
}
