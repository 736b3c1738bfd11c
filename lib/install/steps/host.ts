// Install steps about the host: checks, packages, the panel's user and directories, hardening.
import { chmod, chown, lstat, readFile } from 'node:fs/promises';
import { arch } from 'node:os';
import { join } from 'node:path';
import { pathExists } from '../../system/common/fs.ts';
import { chownTree, ensureDir, relayVhostFiles, writeIfChanged, type Owner } from '../files.ts';
import { checkArch, checkOs, chooseIp, InstallError, parseOsRelease } from '../host-checks.ts';
import type { Installation } from '../installation.ts';
import { ROOT, type InstallState, type Outcome } from './step.ts';

const PACKAGES = ['nginx', 'certbot', 'openssl'];

export async function preflight(inst: Installation, state: InstallState): Promise<Outcome> {
  if (process.getuid?.() !== 0) throw new InstallError('install must run as root', 'run it with sudo');
  const os = checkOs(parseOsRelease(await readFile(inst.layout.osRelease, 'utf8').catch(() => readFile('/etc/os-release', 'utf8'))));
  const cpu = checkArch(arch());
  state.ip = chooseIp(inst.options.ip);
  return { status: 'done', message: `${os}, ${cpu}, address ${state.ip}` };
}

export async function packages(inst: Installation): Promise<Outcome> {
  if (!inst.options.packages) return { status: 'skipped', message: 'skipped (--no-packages): nginx, certbot and openssl must be installed' };
  // fail2ban's journal backend (the sshd jail's on Debian 12) needs python3-systemd, only recommended
  const wanted = [...PACKAGES, ...(inst.options.harden ? ['fail2ban', 'python3-systemd'] : [])];
  const missing: string[] = [];
  for (const pkg of wanted) {
    const r = await inst.run(inst.tools.dpkgQuery, ['-W', '-f', '${Status}', pkg], [1]).catch(() => null);
    if (!r || !r.stdout.includes('install ok installed')) missing.push(pkg);
  }
  if (missing.length === 0) return { status: 'done', message: `${wanted.join(', ')} already installed` };
  await inst.run(inst.tools.aptGet, ['update']);
  await inst.run(inst.tools.aptGet, ['install', '-y', '--no-install-recommends', ...missing]);
  return { status: 'changed', message: `installed ${missing.join(', ')}` };
}

async function lookupUser(inst: Installation, name: string): Promise<Owner | null> {
  const r = await inst.run(inst.tools.getent, ['passwd', name], [2]);
  const fields = r.exitCode === 0 ? r.stdout.trim().split(':') : [];
  return fields.length >= 4 ? { uid: Number(fields[2]), gid: Number(fields[3]) } : null;
}

export async function user(inst: Installation, state: InstallState): Promise<Outcome> {
  const name = inst.options.user;
  const existing = await lookupUser(inst, name);
  if (existing) {
    state.owner = existing;
    return { status: 'done', message: `user ${name} exists (uid ${existing.uid})` };
  }
  // the journal group lets the panel show its services' logs without root
  const journal = (await inst.run(inst.tools.getent, ['group', 'systemd-journal'], [2])).exitCode === 0;
  await inst.run(inst.tools.useradd, ['--system', '--user-group', '--no-create-home', '--home-dir', inst.layout.dataDir,
    '--shell', '/usr/sbin/nologin', ...(journal ? ['--groups', 'systemd-journal'] : []), name]);
  state.owner = (await lookupUser(inst, name))!;
  return { status: 'changed', message: `created system user ${name} (uid ${state.owner.uid})` };
}

/**
 * Directories the panel writes: its own, and the host's where it puts ACME files; and the vhost
 * directories, root's alone (the root helper writes them; nginx's master runs as root).
 */
export function panelDirectories(inst: Installation): { own: string[]; shared: string[]; vhosts: string[] } {
  const s = inst.system;
  return {
    own: [s.pki.dir, s.nginx.selfSignedDir, s.nginx.helpDir, s.chisel.dir, s.authelia.dir, s.acme.configDir, s.acme.workDir,
      s.acme.logsDir, s.sites.root],
    // Debian's own directory stays root's; the panel's group may add files
    shared: [s.acme.webroot],
    vhosts: [s.nginx.sitesAvailable, s.nginx.sitesEnabled],
  };
}

/**
 * The vhost directories and our vhosts in them made root's (a box installed before the helper had
 * them group-writable and the panel's): true when something changed.
 */
export async function lockVhostDirs(inst: Installation): Promise<boolean> {
  let changed = false;
  for (const dir of panelDirectories(inst).vhosts) changed = (await ensureDir(dir, 0o755, ROOT)) || changed;
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

export async function directories(inst: Installation, owner: Owner): Promise<Outcome> {
  const l = inst.layout;
  let changed = false;
  const note = (c: boolean) => (changed ||= c);
  note(await ensureDir(l.configDir, 0o750, owner));
  note(await ensureDir(l.dataDir, 0o700, owner));
  note(await ensureDir(l.appDir, 0o755, ROOT));
  note(await ensureDir(l.releasesDir, 0o755, ROOT));
  const dirs = panelDirectories(inst);
  for (const dir of dirs.own) note(await ensureDir(dir, dir === inst.system.pki.dir ? 0o700 : 0o755, owner));
  for (const dir of dirs.shared) note(await ensureDir(dir, 0o2775, { uid: 0, gid: owner.gid }));
  note(await lockVhostDirs(inst));
  // a reinstall after `uninstall` (which removes the user) gets the kept files back under the new uid
  for (const dir of [l.configDir, l.dataDir, ...dirs.own]) await chownTree(dir, owner);
  return { status: changed ? 'changed' : 'done', message: `${l.configDir}, ${l.dataDir}, ${dirs.own.length + dirs.shared.length + dirs.vhosts.length} host directories` };
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
  if (await writeIfChanged(inst.layout.fail2banJail, FAIL2BAN_JAIL, 0o644)) await inst.run(inst.system.binaries.systemctl, ['restart', 'fail2ban']);
  // its unit is Type=simple: `restart` succeeds before fail2ban reads its jails, and a jail it cannot
  // set up stops it a moment later
  if (!(await fail2banAnswers(inst, retryMs))) {
    return { status: 'warning', message: [...done, 'fail2ban does not run'].join('; '), fix: 'journalctl -u fail2ban -n 20 shows why; fix it, then systemctl restart fail2ban' };
  }
  done.push('fail2ban guards ssh and nginx');
  return { status: 'done', message: done.join('; ') };
}

// Debian 12 logs sshd to the journal only (no rsyslog, no auth.log): a file-backed sshd jail finds
// no log and stops fail2ban altogether
const FAIL2BAN_JAIL = '# managed by relay-panel\n[sshd]\nenabled = true\nbackend = systemd\n\n[nginx-http-auth]\nenabled = true\n';

async function fail2banAnswers(inst: Installation, retryMs: number): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    const ping = await inst.run(inst.tools.fail2ban, ['ping'], [255]).catch(() => null);
    if (ping?.exitCode === 0) return true;
    await new Promise((r) => setTimeout(r, retryMs));
  }
  return false;
}
