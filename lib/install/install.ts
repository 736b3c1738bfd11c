// `relay-panel install`: from a fresh Debian/Ubuntu box to the IP panel on :9292. Every step first
// looks at what is there, so a second run changes nothing and an interrupted run resumes.
import { randomBytes } from 'node:crypto';
import { cp, readFile, rename, rm } from 'node:fs/promises';
import { arch } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigStore } from '../config.ts';
import { pathExists } from '../system/common/fs.ts';
import { writeSecretFile } from '../system/atomic-write.ts';
import { AuthfileStore } from '../system/common/authfile.ts';
import { createPortalFiles } from '../system/common/portal-files.ts';
import { createHostSystem } from '../system/host/index.ts';
import { installPinned } from '../system/host/install.ts';
import { renderAutheliaUnit, renderChiselUnit } from '../system/host/units.ts';
import { chownTree, ensureDir, pointLink, writeIfChanged, type Owner } from './files.ts';
import { waitForHealth } from './health.ts';
import { checkArch, checkOs, chooseIp, InstallError, parseOsRelease } from './host-checks.ts';
import type { Installation } from './installation.ts';
import { renderPanelUnit } from './panel-unit.ts';
import { privilegedCommands, renderSudoers, renderWrapper } from './privileges.ts';
import { reportedError, type Reporter, type StepStatus } from './report.ts';

interface Outcome {
  status: StepStatus;
  message: string;
  fix?: string;
}

interface InstallState {
  ip?: string;
  owner?: Owner;
  p12Password?: string;
  unitChanged?: boolean;
}

const ROOT: Owner = { uid: 0, gid: 0 };
const PACKAGES = ['nginx', 'certbot', 'openssl', 'sudo'];

export async function install(inst: Installation, report: Reporter): Promise<void> {
  const state: InstallState = {};
  const steps: Array<[string, () => Promise<Outcome>]> = [
    ['preflight', () => preflight(inst, state)],
    ['packages', () => packages(inst)],
    ['user', () => user(inst, state)],
    ['directories', () => directories(inst, state.owner!)],
    ['release', () => release(inst)],
    ['config', () => config(inst, state)],
    ['certificates', () => certificates(inst, state)],
    ['ip-vhost', () => ipVhost(inst, state.owner!)],
    ['privileges', () => privileges(inst)],
    ['units', () => units(inst, state)],
    ['harden', () => harden(inst)],
    ['start', () => start(inst, state)],
    ['health', () => health(inst)],
  ];
  for (const [name, step] of steps) {
    let outcome: Outcome;
    try {
      outcome = await step();
    } catch (e) {
      const fix = e instanceof InstallError ? e.fix : 'fix the cause and run install again: finished steps are kept';
      report.step({ step: name, status: 'failed', message: (e as Error).message, ...(fix ? { fix } : {}) });
      throw reportedError(e as Error);
    }
    report.step({ step: name, ...outcome });
  }
  const { layout: l, system } = inst;
  const url = `https://${state.ip!.includes(':') ? `[${state.ip}]` : state.ip}:${system.ports.ipPanel}`;
  report.text([
    '',
    'relay-panel is installed. Next:',
    state.p12Password
      ? `  1. Copy the admin certificate ${l.adminP12} to your computer (scp root@${state.ip}:${l.adminP12} .); its password, shown only now: ${state.p12Password}`
      : `  1. The admin certificate ${l.adminP12} was made by an earlier install; its password was shown then`,
    '  2. Import it into your browser (or the system keychain)',
    `  3. Open ${url} (accept the self-signed server certificate) and follow the onboarding`,
  ], { adminP12: l.adminP12, url, ...(state.p12Password ? { p12Password: state.p12Password } : {}) });
}

async function preflight(inst: Installation, state: InstallState): Promise<Outcome> {
  if (process.getuid?.() !== 0) throw new InstallError('install must run as root', 'run it with sudo');
  const os = checkOs(parseOsRelease(await readFile(inst.layout.osRelease, 'utf8').catch(() => readFile('/etc/os-release', 'utf8'))));
  const cpu = checkArch(arch());
  state.ip = chooseIp(inst.options.ip);
  return { status: 'done', message: `${os}, ${cpu}, address ${state.ip}` };
}

async function packages(inst: Installation): Promise<Outcome> {
  if (!inst.options.packages) return { status: 'skipped', message: 'skipped (--no-packages): nginx, certbot, openssl and sudo must be installed' };
  const wanted = [...PACKAGES, ...(inst.options.harden ? ['fail2ban'] : [])];
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

async function user(inst: Installation, state: InstallState): Promise<Outcome> {
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

/** Directories the panel writes: its own, and the host's where it puts vhosts, ACME files, portal files. */
export function panelDirectories(inst: Installation): { own: string[]; shared: string[] } {
  const s = inst.system;
  return {
    own: [s.pki.dir, s.nginx.selfSignedDir, s.nginx.helpDir, s.chisel.dir, s.authelia.dir, s.acme.configDir, s.acme.workDir,
      s.acme.logsDir, s.sites.root],
    // Debian's own directories stay root's; the panel's group may add files
    shared: [s.nginx.sitesAvailable, s.nginx.sitesEnabled, s.acme.webroot],
  };
}

async function directories(inst: Installation, owner: Owner): Promise<Outcome> {
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
  // a reinstall after `uninstall` (which removes the user) gets the kept files back under the new uid
  for (const dir of [l.configDir, l.dataDir, ...dirs.own]) await chownTree(dir, owner);
  return { status: changed ? 'changed' : 'done', message: `${l.configDir}, ${l.dataDir}, ${dirs.own.length + dirs.shared.length} host directories` };
}

export async function releaseVersion(dir: string): Promise<string> {
  const version = (await readFile(join(dir, 'VERSION'), 'utf8').catch(() => '')).trim();
  if (!/^[0-9A-Za-z.+-]{1,64}$/.test(version)) throw new InstallError(`${dir} is not a release (no VERSION file)`, 'run the server.mjs of an unpacked release');
  return version;
}

/** Copies the running release into releases/<version> (once) and points `current` at it. */
export async function placeRelease(inst: Installation, source: string): Promise<{ version: string; changed: boolean }> {
  const version = await releaseVersion(source);
  const target = join(inst.layout.releasesDir, version);
  let changed = false;
  if (source !== target && !(await pathExists(join(target, 'VERSION')))) {
    // copied beside, then renamed: an interrupted copy never looks like a release
    await rm(`${target}.partial`, { recursive: true, force: true });
    await cp(source, `${target}.partial`, { recursive: true });
    await rename(`${target}.partial`, target);
    await chownTree(target, ROOT);
    changed = true;
  }
  changed = (await pointLink(inst.layout.current, join('releases', version))) || changed;
  return { version, changed };
}

async function release(inst: Installation): Promise<Outcome> {
  const { version, changed } = await placeRelease(inst, inst.options.release);
  return { status: changed ? 'changed' : 'done', message: `release ${version} in ${inst.layout.current}` };
}

async function config(inst: Installation, state: InstallState): Promise<Outcome> {
  const l = inst.layout;
  let created = false;
  if (!(await pathExists(l.configFile))) {
    // ConfigStore makes the session secret once; a later install opens and keeps it
    await ConfigStore.create(l.configFile, {
      ip: state.ip!,
      domain: null,
      email: null,
      dataDir: l.dataDir,
      staticDir: join(l.current, 'panel'),
      onboarding: { status: 'FRESH' },
      listen: { host: '127.0.0.1', port: inst.system.ports.panel },
      system: inst.panelSystem,
    });
    created = true;
  } else {
    const kept = (await ConfigStore.open(l.configFile)).value;
    if (inst.options.ip !== undefined && kept.ip !== state.ip) {
      await chownTree(l.configFile, state.owner!);
      return { status: 'warning', message: `kept ${l.configFile}, whose ip is ${kept.ip} (not ${state.ip})`, fix: `change "ip" in ${l.configFile}, then systemctl restart ${inst.system.units.panel}` };
    }
  }
  await chownTree(l.configFile, state.owner!);
  return { status: created ? 'changed' : 'done', message: created ? `wrote ${l.configFile}` : `kept ${l.configFile}` };
}

async function certificates(inst: Installation, state: InstallState): Promise<Outcome> {
  const pki = createHostSystem(inst.system, { dataDir: inst.layout.dataDir }).pki;
  const hadCa = await pathExists(join(inst.system.pki.dir, 'ca.pem'));
  await pki.ensureCa();
  let made = false;
  if (!(await pathExists(inst.layout.adminP12))) {
    const password = randomBytes(12).toString('base64url');
    const cert = await pki.issueClientCert('admin');
    await writeSecretFile(inst.layout.adminP12, await pki.toPkcs12(cert, password));
    state.p12Password = password;
    made = true;
  }
  // the panel signs agent certificates and rewrites the CRL
  await chownTree(inst.system.pki.dir, state.owner!);
  const parts = [hadCa ? 'client CA kept' : 'client CA created', made ? `admin certificate ${inst.layout.adminP12} (0600)` : 'admin certificate kept'];
  return { status: made || !hadCa ? 'changed' : 'done', message: parts.join(', ') };
}

async function ipVhost(inst: Installation, owner: Owner): Promise<Outcome> {
  const system = createHostSystem(inst.system, { dataDir: inst.layout.dataDir });
  const name = system.proxy.vhostName({ kind: 'ip-panel' });
  const file = join(inst.system.nginx.sitesAvailable, name);
  const before = await readFile(file, 'utf8').catch(() => null);
  const linked = (await system.proxy.state(name)).enabled;
  await system.proxy.apply([{ op: 'put', spec: { kind: 'ip-panel' }, enabled: true }]);
  await chownTree(inst.system.nginx.selfSignedDir, owner);
  await chownTree(inst.system.nginx.helpDir, owner);
  const same = linked && before === (await readFile(file, 'utf8'));
  return { status: same ? 'done' : 'changed', message: `${file} on port ${inst.system.ports.ipPanel} (client certificate required), nginx tested and reloaded` };
}

async function privileges(inst: Installation): Promise<Outcome> {
  const { layout: l, options } = inst;
  if (options.user === 'root') return { status: 'skipped', message: 'the panel runs as root (--user root): no sudo rules' };
  let changed = await ensureDir(l.wrapperDir, 0o755, ROOT);
  for (const program of ['nginx', 'systemctl'] as const) {
    changed = (await writeIfChanged(join(l.wrapperDir, program), renderWrapper(inst.tools.sudo, inst.system.binaries[program]), 0o755)) || changed;
  }
  const sudoers = renderSudoers(options.user, privilegedCommands(inst.system));
  if (await writeIfChanged(l.sudoersFile, sudoers, 0o440)) {
    changed = true;
    if (await pathExists(inst.tools.visudo)) {
      try {
        await inst.run(inst.tools.visudo, ['-cf', l.sudoersFile]);
      } catch (e) {
        // an invalid file in sudoers.d breaks sudo for everyone
        await rm(l.sudoersFile, { force: true });
        throw new InstallError(`the generated sudoers file is invalid and was removed: ${(e as Error).message}`);
      }
    }
  }
  return { status: changed ? 'changed' : 'done', message: `${privilegedCommands(inst.system).length} command lines granted in ${l.sudoersFile}` };
}

async function units(inst: Installation, state: InstallState): Promise<Outcome> {
  const { system, layout: l, options } = inst;
  const dirs = panelDirectories(inst);
  // sudo's timestamps and nginx's error log are written by the whitelisted commands, which share the panel's mounts
  const writable = [l.configDir, l.dataDir, ...dirs.own, ...dirs.shared, dirname(system.nginx.errorLog), '/run/sudo'];
  const panel = renderPanelUnit({ user: options.user, node: options.node, server: join(l.current, 'server.mjs'), configFile: l.configFile, writable });
  // chisel's and Authelia's units and binaries are root's (the panel only enables them); the
  // services themselves run as the panel's user, which owns their files
  const chisel = renderChiselUnit({ binary: system.binaries.chisel, port: system.ports.tunnelServer, authfile: new AuthfileStore(system.chisel.dir).authfile, user: system.systemd.runAs });
  const authelia = renderAutheliaUnit({ binary: system.binaries.authelia, config: createPortalFiles(system, system.authelia.dir).configPath, user: system.systemd.runAs });
  state.unitChanged = await writeIfChanged(l.unitFile(system.units.panel), panel, 0o644);
  let changed = state.unitChanged;
  changed = (await writeIfChanged(l.unitFile(system.units['tunnel-server']), chisel, 0o644)) || changed;
  changed = (await writeIfChanged(l.unitFile(system.units['auth-portal']), authelia, 0o644)) || changed;
  if (options.downloads) {
    const timeoutMs = system.timeouts.downloadMs;
    changed = (await installPinned({ name: 'chisel', ...system.chisel.release }, system.binaries.chisel, { timeoutMs })) || changed;
    changed = (await installPinned({ name: 'authelia', ...system.authelia.release }, system.binaries.authelia, { timeoutMs, archiveMember: system.authelia.archiveMember })) || changed;
  }
  if (changed) await inst.run(system.binaries.systemctl, ['daemon-reload']);
  return { status: changed ? 'changed' : 'done', message: `${l.unitFile(system.units.panel)} (user ${options.user}, sandboxed)${options.downloads ? '' : `; --no-downloads: put chisel at ${system.binaries.chisel} and Authelia at ${system.binaries.authelia} (root-owned) before onboarding`}` };
}

export async function harden(inst: Installation): Promise<Outcome> {
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
  const jail = '# managed by relay-panel\n[sshd]\nenabled = true\n\n[nginx-http-auth]\nenabled = true\n';
  if (await writeIfChanged(inst.layout.fail2banJail, jail, 0o644)) await inst.run(inst.system.binaries.systemctl, ['restart', 'fail2ban']);
  done.push('fail2ban guards ssh and nginx');
  return { status: 'done', message: done.join('; ') };
}

async function start(inst: Installation, state: InstallState): Promise<Outcome> {
  const { systemctl } = inst.system.binaries;
  const { proxy, panel } = inst.system.units;
  await inst.run(systemctl, ['enable', '--now', proxy]);
  await inst.run(systemctl, ['enable', '--now', panel]);
  if (state.unitChanged) await inst.run(systemctl, ['restart', panel]);
  return { status: 'done', message: `${proxy} and ${panel} enabled and running` };
}

async function health(inst: Installation): Promise<Outcome> {
  if (inst.options.healthTimeoutMs === 0) return { status: 'skipped', message: 'not waited for (--health-timeout 0)' };
  const ok = await waitForHealth(inst.system.ports.panel, inst.options.healthTimeoutMs);
  return ok
    ? { status: 'done', message: `http://127.0.0.1:${inst.system.ports.panel}/api/health answers` }
    : { status: 'warning', message: 'the panel did not answer /api/health yet', fix: `journalctl -u ${inst.system.units.panel} -n 50` };
}
