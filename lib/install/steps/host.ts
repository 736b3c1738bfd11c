// Install steps about the host: checks, packages, the panel's user and directories, hardening.
import { chmod, chown, lstat, mkdir, readdir, readFile } from 'node:fs/promises';
import { arch } from 'node:os';
import { dirname, join } from 'node:path';
import { entryExists, notRootOnly, pathExists } from '../../system/common/fs.ts';
import { isUnitActive } from '../unit-state.ts';
import { ensureDir, relayVhostFiles, writeIfChanged, type Owner } from '../files.ts';
import { topLevelPanelDirs, type PanelDirSpec } from '../panel-dirs.ts';
import { routesDirOf, serviceUser } from '../../system/config.ts';
import { lookupGroup, lookupUser, uidIsFree } from '../users.ts';
import { noteCreated, readInstallRecord } from '../install-record.ts';
import { checkArch, checkOs, chooseIp, InstallError, parseOsRelease } from '../host-checks.ts';
import type { Installation } from '../installation.ts';
import { ROOT, type InstallState, type Outcome } from './step.ts';
import { aptInstallArgs, DPKG_STATUS_ARGS, isInstalledStatus } from '../../system/packages/apt.ts';
import { ensureStreamBlock } from '../stream-block.ts';

/** nginx's stream module, for the TCP and UDP tunnels: Debian's nginx only suggests it */
export const STREAM_MODULE = 'libnginx-mod-stream';
const PACKAGES = ['nginx', STREAM_MODULE, 'certbot', 'openssl'];

export async function preflight(inst: Installation, state: InstallState): Promise<Outcome> {
  if (process.getuid?.() !== 0) throw new InstallError('install must run as root', 'run it with sudo');
  const os = checkOs(parseOsRelease(await readFile(inst.layout.osRelease, 'utf8').catch(() => readFile('/etc/os-release', 'utf8'))));
  const cpu = checkArch(arch());
  state.ip = chooseIp(inst.options.ip);
  return { status: 'done', message: `${os}, ${cpu}, address ${state.ip}` };
}

/** What install apt-gets, and an upgrade too (a box installed before a package joined the list gets it then). */
export function wantedPackages(inst: Installation): string[] {
  // fail2ban's journal backend (the sshd jail's on Debian 12) needs python3-systemd, only recommended
  return [...PACKAGES, ...(inst.options.harden ? ['fail2ban', 'python3-systemd'] : [])];
}

/** The ones dpkg does not call installed. */
async function missingPackages(inst: Installation, wanted: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const pkg of wanted) {
    const r = await inst.run(inst.tools.dpkgQuery, DPKG_STATUS_ARGS(pkg), [1]).catch(() => null);
    if (!r || !isInstalledStatus(r.stdout)) missing.push(pkg);
  }
  return missing;
}

/** apt-get failing to install `missing` (its own error's message): the upgrade makes it a warning. */
export class AptFailure extends Error {
  constructor(readonly missing: readonly string[], cause: unknown) {
    super((cause as Error).message, { cause });
  }
}

/** apt-get update and install, noted as install's (uninstall --purge removes them). */
async function aptInstall(inst: Installation, missing: readonly string[]): Promise<void> {
  try {
    await inst.run(inst.tools.aptGet, ['update']);
    await inst.run(inst.tools.aptGet, aptInstallArgs(missing));
  } catch (e) {
    throw new AptFailure(missing, e);
  }
  await noteCreated(inst, { packages: [...missing] });
}

const NO_PACKAGES = `skipped (--no-packages): ${PACKAGES.join(', ')} must be installed (${STREAM_MODULE} for the TCP and UDP tunnels only)`;

/** Install's package step (and the upgrade's): what it did, and the packages it installed. */
export async function installPackages(inst: Installation): Promise<{ outcome: Outcome; installed: string[] }> {
  if (!inst.options.packages) return { outcome: { status: 'skipped', message: NO_PACKAGES }, installed: [] };
  const wanted = wantedPackages(inst);
  const missing = await missingPackages(inst, wanted);
  if (missing.length === 0) return { outcome: { status: 'done', message: `${wanted.join(', ')} already installed` }, installed: [] };
  await aptInstall(inst, missing);
  return { outcome: { status: 'changed', message: `installed ${missing.join(', ')}` }, installed: missing };
}

export async function packages(inst: Installation): Promise<Outcome> {
  return (await installPackages(inst)).outcome;
}

export async function user(inst: Installation, state: InstallState): Promise<Outcome> {
  const name = inst.options.user;
  const existing = await lookupUser(inst, name);
  const made: string[] = [];
  if (existing) {
    state.owner = existing;
  } else {
    // files kept by an earlier uninstall whose release removed the user keep its uid: the user comes
    // back with it, so nothing has to be given to a new one
    const kept = await lstat(inst.layout.dataDir).catch(() => null);
    const reuse = kept && kept.uid !== 0 && (await uidIsFree(inst, kept.uid)) ? ['--uid', String(kept.uid)] : [];
    // the journal group lets the panel show its services' logs without root
    const journal = (await inst.run(inst.tools.getent, ['group', 'systemd-journal'], [2])).exitCode === 0;
    await inst.run(inst.tools.useradd, ['--system', '--user-group', '--no-create-home', '--home-dir', inst.layout.dataDir,
      '--shell', '/usr/sbin/nologin', ...reuse, ...(journal ? ['--groups', 'systemd-journal'] : []), name]);
    state.owner = (await lookupUser(inst, name))!;
    await noteCreated(inst, { users: [name] });
    made.push(`${name} (uid ${state.owner.uid}${reuse.length ? ', the uid its kept files carry' : ''})`);
  }
  if (name !== 'root') made.push(...(await serviceUserAccounts(inst)));
  const says = made.length ? `created ${made.join(', ')}` : `${name} and its services' users exist (uid ${state.owner.uid})`;
  return { status: made.length ? 'changed' : 'done', message: says };
}

/**
 * chisel's and Authelia's users, each with a group of its name; the panel's user joins Authelia's
 * (it writes Authelia's TOTP storage), never chisel's, and neither joins the panel's group.
 */
async function serviceUserAccounts(inst: Installation): Promise<string[]> {
  const made: string[] = [];
  for (const service of ['tunnel-server', 'auth-portal'] as const) {
    const account = serviceUser(inst.system, service)!;
    if (await lookupUser(inst, account)) continue;
    await inst.run(inst.tools.useradd, ['--system', '--user-group', '--no-create-home', '--home-dir', '/', '--shell', '/usr/sbin/nologin', account]);
    await noteCreated(inst, { users: [account] });
    made.push(account);
  }
  const portal = serviceUser(inst.system, 'auth-portal')!;
  if (!(await lookupGroup(inst, portal))!.members.includes(inst.options.user)) {
    await inst.run(inst.tools.usermod, ['--append', '--groups', portal, inst.options.user]);
    made.push(`${inst.options.user}'s membership of ${portal}`);
  }
  return made;
}

/**
 * nginx's vhost directories and the shared apps' routes: root's alone (the root helper writes them;
 * nginx's master runs as root), made before the helper starts (its unit can write them, not make them).
 */
function vhostDirs(inst: Installation): string[] {
  return [inst.system.nginx.sitesAvailable, inst.system.nginx.sitesEnabled, routesDirOf(inst.system)];
}

/**
 * Where the root helper copies what nginx's master loads (certificates, keys, the client CA and its
 * CRL) after checking it: root's alone, and made before the helper starts (its unit can write it,
 * not make it).
 */
export async function tlsCopiesDir(inst: Installation): Promise<boolean> {
  return ensureDir(inst.system.nginx.tlsDir, 0o700, ROOT);
}

/**
 * The vhost directories and our vhosts in them made root's (a box installed before the helper had
 * them group-writable and the panel's): true when something changed.
 */
export async function lockVhostDirs(inst: Installation): Promise<boolean> {
  let changed = false;
  for (const dir of vhostDirs(inst)) changed = (await ensureDir(dir, 0o755, ROOT)) || changed;
  const available = inst.system.nginx.sitesAvailable;
  for (const name of await relayVhostFiles(available)) {
    const st = await lstat(join(available, name));
    if (st.isFile() && (st.uid !== 0 || st.gid !== 0 || (st.mode & 0o7777) !== 0o644)) {
      await chown(join(available, name), 0, 0);
      await chmod(join(available, name), 0o644);
      changed = true;
    }
  }
  return changed;
}

/**
 * A directory install did not make and the panel's user does not own (an operator's own /etc/chisel,
 * say) is not taken over: install never changes the owner of what it did not create. An empty one
 * is (nothing of anyone's is in it).
 */
async function refuseSomeoneElses(path: string, uid: number, owner: Owner, made: readonly string[]): Promise<void> {
  if (uid === owner.uid || made.includes(path)) return;
  if ((await readdir(path).catch(() => [])).length === 0) return;
  throw new InstallError(`${path} exists, holds files and is not relay-panel's (uid ${uid})`, `move it aside, or give relay-panel another path with --system-config, then run install again`);
}

/** The group a directory of the panel's belongs to: its own, or a service's that reads it (panel-dirs.ts). */
async function dirGroup(inst: Installation, dir: PanelDirSpec, owner: Owner): Promise<number> {
  const account = dir.group ? serviceUser(inst.system, dir.group) : null;
  if (!account || account === inst.options.user) return owner.gid;
  const group = await lookupGroup(inst, account);
  if (!group) throw new InstallError(`there is no group ${account}`, 'run relay-panel install again: its user step makes it');
  return group.gid;
}

/**
 * Root's directories and the panel's top-level ones (whose parents are root's alone: checked, since
 * root makes them). Directories inside the panel's own are the panel's user's to make (config step).
 */
export async function directories(inst: Installation, owner: Owner): Promise<Outcome> {
  const l = inst.layout;
  let changed = false;
  const note = (c: boolean) => (changed ||= c);
  note(await ensureDir(l.appDir, 0o755, ROOT));
  note(await ensureDir(l.releasesDir, 0o755, ROOT));
  const top = topLevelPanelDirs(inst);
  const { created } = await readInstallRecord(l.installRecord);
  for (const dir of top) {
    await mkdir(dirname(dir.path), { recursive: true });
    const problem = await notRootOnly(dirname(dir.path));
    if (problem) throw new InstallError(`${dir.path} cannot be made safely: ${problem}`, `make ${dirname(dir.path)} root's and writable by root alone, then run install again`);
    const found = await lstat(dir.path).catch(() => null);
    if (found) await refuseSomeoneElses(dir.path, found.uid, owner, created?.paths ?? []);
    note(await ensureDir(dir.path, dir.mode, { uid: owner.uid, gid: await dirGroup(inst, dir, owner) }));
    if (!found) await noteCreated(inst, { paths: [dir.path] });
  }
  note(await lockVhostDirs(inst));
  note(await tlsCopiesDir(inst));
  const streams = await ensureStreamBlock(inst.system);
  note(streams.changed);
  const streamNote = streams.loaded ? '' : `; nginx's stream module is not loaded, so TCP and UDP tunnels cannot be served (apt-get install libnginx-mod-stream, then run install again)`;
  return { status: changed ? 'changed' : 'done', message: `${l.appDir}, ${top.length} directories of ${inst.options.user}, nginx's vhost directories root's${streamNote}` };
}

export async function harden(inst: Installation, retryMs = 250): Promise<Outcome> {
  if (!inst.options.harden) return { status: 'skipped', message: 'skipped (--no-harden)' };
  const done: string[] = [];
  if (await pathExists(inst.tools.ufw)) {
    const p = inst.system.ports;
    for (const port of [22, p.http, p.https, p.ipPanel]) await inst.run(inst.tools.ufw, ['allow', `${port}/tcp`]);
    await inst.run(inst.tools.ufw, ['--force', 'enable']);
    done.push(`ufw allows 22, ${p.http}, ${p.https}, ${p.ipPanel}`);
  }
  if (!(await pathExists(inst.tools.fail2ban))) {
    return { status: 'warning', message: [...done, 'fail2ban is not installed'].join('; '), fix: 'apt-get install fail2ban and run install again' };
  }
  // as install found it, before its first jail: uninstall puts it back so
  if (!(await entryExists(inst.layout.fail2banJail))) await noteCreated(inst, { fail2ban: await fail2banState(inst) });
  if (await writeIfChanged(inst.layout.fail2banJail, FAIL2BAN_JAIL, 0o644)) await inst.run(inst.system.binaries.systemctl, ['restart', 'fail2ban']);
  // its unit is Type=simple: `restart` succeeds before fail2ban reads its jails, and a jail it cannot
  // set up stops it a moment later
  if (!(await fail2banAnswers(inst, retryMs))) {
    return { status: 'warning', message: [...done, 'fail2ban does not run'].join('; '), fix: 'journalctl -u fail2ban -n 20 shows why; fix it, then systemctl restart fail2ban' };
  }
  done.push('fail2ban guards ssh and nginx');
  return { status: 'done', message: done.join('; ') };
}

/** Whether fail2ban is enabled and running, as systemctl says. */
export async function fail2banState(inst: Installation): Promise<{ enabled: boolean; active: boolean }> {
  const enabled = await inst.run(inst.system.binaries.systemctl, ['is-enabled', 'fail2ban'], [1, 4]).then((r) => r.stdout.trim() === 'enabled', () => false);
  return { enabled, active: await isUnitActive(inst, 'fail2ban') };
}

// Debian 12 logs sshd to the journal only (no rsyslog, no auth.log): a file-backed sshd jail finds
// no log and stops fail2ban altogether
const FAIL2BAN_JAIL = '# managed by relay-panel\n[sshd]\nenabled = true\nbackend = systemd\n\n[nginx-http-auth]\nenabled = true\n';

export async function fail2banAnswers(inst: Installation, retryMs: number): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    const ping = await inst.run(inst.tools.fail2ban, ['ping'], [255]).catch(() => null);
    if (ping?.exitCode === 0) return true;
    await new Promise((r) => setTimeout(r, retryMs));
  }
  return false;
}
