// Install steps that set up the panel itself: configuration, certificates, units, renewals, start and health
// (its vhosts: vhosts.ts; its privileges: root-helper.ts).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { writeSecretFile } from '../../system/common/atomic-write.ts';
import { entryExists } from '../../system/common/fs.ts';
import { serviceUser } from '../../system/config.ts';
import { autheliaUnit } from '../../system/auth-portal/host.ts';
import { renewUnitNames } from '../../system/certs/renew-units.ts';
import { chiselUnit } from '../../system/tunnel-server/host.ts';
import { checksumSources, installPinned } from '../../system/pinned/install.ts';
import { asPanelUser } from '../as-panel-user.ts';
import { writeIfChanged, type Owner } from '../files.ts';
import { directories } from './host.ts';
import { REAL_HEALTH_WAIT, waitForPanel, type HealthWaitTools } from '../health.ts';
import { InstallError } from '../host-checks.ts';
import type { Installation } from '../installation.ts';
import { readInstalledConfig } from '../installed-config.ts';
import { noteCreated } from '../install-record.ts';
import { nestedPanelDirs, topLevelPanelDirs } from '../panel-dirs.ts';
import { placeRenewalUnits } from '../renewals.ts';
import { settleServiceFiles } from '../service-files.ts';
import { renderPanelSocket, renderPanelUnit } from '../panel-unit.ts';
import type { InstallState, Outcome } from './step.ts';
import { isUnitActive } from '../unit-state.ts';
import { panelOwner } from '../users.ts';

/**
 * The directories inside the panel's own and its configuration file, made by the panel's user: a
 * link it planted where one of them belongs is refused, never followed (panel-task/dirs.ts).
 */
export async function config(inst: Installation, state: InstallState): Promise<Outcome> {
  const l = inst.layout;
  const owner = state.owner!;
  const { made } = await asPanelUser(inst, owner, { task: 'dirs', dirs: nestedPanelDirs(inst) });
  const answer = await asPanelUser(inst, owner, {
    task: 'config',
    file: l.configFile,
    create: {
      ip: state.ip!,
      domain: null,
      email: null,
      dataDir: l.dataDir,
      staticDir: join(l.current, 'panel'),
      onboarding: { status: 'FRESH' },
      listen: { host: '127.0.0.1', port: inst.system.ports.panel },
      system: inst.panelSystem,
    },
  });
  if (!answer.created && inst.options.ip !== undefined && answer.ip !== state.ip) {
    return { status: 'warning', message: `kept ${l.configFile}, whose ip is ${answer.ip} (not ${state.ip})`, fix: `change "ip" in ${l.configFile}, then systemctl restart ${inst.system.units.panel}` };
  }
  const dirs = made.length ? `; made ${made.join(', ')}` : '';
  return { status: answer.created || made.length ? 'changed' : 'done', message: `${answer.created ? 'wrote' : 'kept'} ${l.configFile}${dirs}` };
}

/** An upgrade's directories: root's and the panel's top-level ones, then those inside the panel's, by its user. */
export async function allDirectories(inst: Installation, owner: Owner): Promise<Outcome> {
  const top = await directories(inst, owner);
  const { made } = await asPanelUser(inst, owner, { task: 'dirs', dirs: nestedPanelDirs(inst) });
  return { ...top, status: top.status === 'changed' || made.length ? 'changed' : 'done' };
}

/** The client CA, and the admin certificate when /root has none: made by the panel's user, whose CA it is. */
export async function certificates(inst: Installation, state: InstallState): Promise<Outcome> {
  const needP12 = !(await entryExists(inst.layout.adminP12));
  const password = needP12 ? randomBytes(12).toString('base64url') : undefined;
  const answer = await asPanelUser(inst, state.owner!, { task: 'pki', system: inst.system, ...(password ? { adminP12Password: password } : {}) });
  if (password) {
    if (!answer.p12) throw new InstallError('the admin certificate was not made');
    // root's own file in root's own directory
    await writeSecretFile(inst.layout.adminP12, Buffer.from(answer.p12, 'base64'));
    await noteCreated(inst, { paths: [inst.layout.adminP12] });
    state.p12Password = password;
  }
  const parts = [answer.caCreated ? 'client CA created' : 'client CA kept', password ? `admin certificate ${inst.layout.adminP12} (0600)` : 'admin certificate kept'];
  return { status: password || answer.caCreated ? 'changed' : 'done', message: parts.join(', ') };
}

export async function units(inst: Installation, state: InstallState): Promise<Outcome> {
  const { system, layout: l, options } = inst;
  const owner = state.owner ?? (await panelOwner(inst));
  // the vhosts, nginx and the units are the root helper's, which runs in mounts of its own; a
  // directory inside another is writable through it, and systemd (root) would follow a link there
  const writable = topLevelPanelDirs(inst).map((d) => d.path);
  const socketUnit = `${system.units.panel}.socket`;
  const panel = renderPanelUnit({ user: options.user, node: options.node, server: join(l.current, 'server.mjs'), configFile: l.configFile, writable, socket: socketUnit });
  const socket = renderPanelSocket({ host: '127.0.0.1', port: system.ports.panel, service: `${system.units.panel}.service` });
  // chisel's and Authelia's units and binaries are root's (the panel only enables them); each runs
  // as its own user, reading what the panel gives its group
  const settled = await settleServiceFiles(inst, owner);
  const key = await asPanelUser(inst, owner, { task: 'host-key', dir: system.chisel.dir });
  state.unitChanged = await writeIfChanged(l.unitFile(system.units.panel), panel, 0o644);
  state.unitChanged = (await writeIfChanged(l.unitFile(system.units.panel, 'socket'), socket, 0o644)) || state.unitChanged;
  const chiselChanged = await writeIfChanged(l.unitFile(system.units['tunnel-server']), chiselUnit(system), 0o644);
  const autheliaChanged = await writeIfChanged(l.unitFile(system.units['auth-portal']), autheliaUnit(system), 0o644);
  let changed = state.unitChanged || chiselChanged || autheliaChanged || settled.length > 0;
  const chiselRelease = { name: 'chisel', ...system.chisel.release };
  const autheliaRelease = { name: 'authelia', ...system.authelia.release };
  if (options.downloads) {
    const timeoutMs = system.timeouts.downloadMs;
    const programs: Array<[typeof chiselRelease, string, string | undefined]> = [
      [chiselRelease, system.binaries.chisel, undefined], [autheliaRelease, system.binaries.authelia, system.authelia.archiveMember]];
    for (const [release, target, archiveMember] of programs) {
      const there = await entryExists(target);
      const wrote = await installPinned(release, target, { timeoutMs, ...(archiveMember ? { archiveMember } : {}) });
      if (wrote && !there) await noteCreated(inst, { paths: [target, `${target}.release`] });
      changed = wrote || changed;
    }
  }
  if (changed) await inst.run(system.binaries.systemctl, ['daemon-reload']);
  // a running chisel keeps the key it read at its start: it must serve the fingerprint the panel hands out;
  // a service whose user or files changed must start again as that user
  const chiselFiles = settled.some((f) => f.startsWith(`${system.chisel.dir}/`));
  if (chiselChanged || key.created || chiselFiles) await inst.run(system.binaries.systemctl, ['try-restart', system.units['tunnel-server']]);
  if (autheliaChanged || settled.some((f) => f.startsWith(`${system.authelia.dir}/`))) await inst.run(system.binaries.systemctl, ['try-restart', system.units['auth-portal']]);
  // provisioning enabled them; after an uninstall that kept the data, the install that follows does
  const completed = (await readInstalledConfig(inst).catch(() => null))?.onboarding.status === 'COMPLETED';
  if (completed) await inst.run(system.binaries.systemctl, ['enable', '--now', system.units['tunnel-server'], system.units['auth-portal']]);
  const programs = options.downloads
    ? `; chisel ${chiselRelease.version} checked against ${checksumSources(chiselRelease)}, Authelia ${autheliaRelease.version} against ${checksumSources(autheliaRelease)}`
    : `; --no-downloads: put chisel at ${system.binaries.chisel} and Authelia at ${system.binaries.authelia} (root-owned) before onboarding`;
  const keyNote = `; tunnel server key ${key.path} ${key.created ? 'created' : 'kept'} (fingerprint ${key.fingerprint})`;
  const users = `chisel as ${serviceUser(system, 'tunnel-server') ?? 'root'}, Authelia as ${serviceUser(system, 'auth-portal') ?? 'root'}`;
  const settledNote = settled.length ? `; given to their services: ${settled.join(', ')}` : '';
  return { status: changed || key.created ? 'changed' : 'done', message: `${l.unitFile(system.units.panel)} (user ${options.user}, sandboxed), ${users}${keyNote}${settledNote}${programs}` };
}

/**
 * The panel's renewal timer and service (renewals.ts); the timer runs once onboarding has issued
 * certificates (provisioning enables it through the root helper; a box that has them gets it here).
 */
export async function renewals(inst: Installation): Promise<Outcome> {
  const changed = await placeRenewalUnits(inst);
  const { systemctl } = inst.system.binaries;
  if (changed) await inst.run(systemctl, ['daemon-reload']);
  const { timer } = renewUnitNames(inst.system);
  const completed = (await readInstalledConfig(inst).catch(() => null))?.onboarding.status === 'COMPLETED';
  if (completed) await inst.run(systemctl, ['enable', '--now', timer]);
  const enabled = completed ? `${timer} enabled` : `${timer} enabled by onboarding`;
  return { status: changed ? 'changed' : 'done', message: `the panel's certificates renew from ${timer} as ${inst.options.user} in ${inst.system.acme.configDir} (${enabled}); Debian's certbot.timer is left to the operator's own certificates` };
}

export async function start(inst: Installation, state: InstallState): Promise<Outcome> {
  const { systemctl } = inst.system.binaries;
  const { proxy, panel } = inst.system.units;
  const moved = await listenThroughSocket(inst);
  await inst.run(systemctl, ['enable', '--now', panel]);
  if (state.unitChanged && !moved) await inst.run(systemctl, ['restart', panel]);
  return { status: 'done', message: `${proxy}, ${panel}.socket and ${panel} enabled and running` };
}

/**
 * Starts the panel's socket unit. A panel of an earlier release listens on the port itself, so the
 * socket could not bind it: that panel stops first (the one moment its port refuses connections)
 * and starts again on the socket. Returns whether the panel was restarted that way.
 */
export async function listenThroughSocket(inst: Installation): Promise<boolean> {
  const { systemctl } = inst.system.binaries;
  const { panel } = inst.system.units;
  const socket = `${panel}.socket`;
  if (await isUnitActive(inst, socket)) {
    await inst.run(systemctl, ['enable', socket]);
    return false;
  }
  const wasRunning = await isUnitActive(inst, panel);
  if (wasRunning) await inst.run(systemctl, ['stop', panel]);
  await inst.run(systemctl, ['enable', '--now', socket]);
  if (wasRunning) await inst.run(systemctl, ['start', panel]);
  return wasRunning;
}

/** Waits for the panel the start step started; a panel systemd shows crashing at start is not waited out. */
export async function health(inst: Installation, tools: HealthWaitTools = REAL_HEALTH_WAIT): Promise<Outcome> {
  if (inst.options.healthTimeoutMs === 0) return { status: 'skipped', message: 'not waited for (--health-timeout 0)' };
  const answered = await waitForPanel(inst, inst.system.ports.panel, inst.options.healthTimeoutMs, tools);
  return answered === true
    ? { status: 'done', message: `http://127.0.0.1:${inst.system.ports.panel}/api/health answers` }
    : { status: 'warning', message: `the panel did not answer /api/health: ${answered}`, fix: `journalctl -u ${inst.system.units.panel} -n 50` };
}
