// `relay-panel upgrade`, run from the new release: put it beside the old one, switch `current`,
// bring packages, privileges, units, pinned programs, the default server and nginx's stream block up
// to date, restart, and wait for /api/health (the new panel rewrites the vhosts whose templates
// changed before it answers). It is all or nothing: when any step fails, every file it may have
// written, vhosts and their links included, is put back as it was, the units and nginx are
// reloaded, and a panel it restarted runs the previous release again. Packages it apt-got stay
// (steps/upgrade-streams.ts says why).
import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { restoreFiles, saveFiles } from './file-snapshot.ts';
import { waitForHealth, waitForPanel } from './health.ts';
import { InstallError } from './host-checks.ts';
import { allDirectories, listenThroughSocket, renewals, units } from './steps/panel.ts';
import { user } from './steps/host.ts';
import { acme } from './steps/acme.ts';
import type { InstallState } from './steps/step.ts';
import { privileges, rootHelperFiles, rootHelperServiceUnit, rootHelperSocketUnit } from './steps/root-helper.ts';
import { pruneReleases } from './steps/prune-releases.ts';
import { placeRelease, releaseVersion } from './steps/release.ts';
import { snapshot } from './steps/snapshot.ts';
import { defaultServer, vhostFiles } from './steps/vhosts.ts';
import { renewalUnits } from './renewals.ts';
import { hostNginxControl } from '../system/proxy/host.ts';
import type { Installation } from './installation.ts';
import { readInstalledConfig, readInstalledConfigText } from './installed-config.ts';
import { asPanelUser } from './as-panel-user.ts';
import { panelOwner } from './users.ts';
import { noteCreated, recordKeepReleases } from './install-record.ts';
import { reportedError, type Reporter } from './report.ts';
import { isUnitActive } from './unit-state.ts';
import { streamBlockPath } from './stream-block.ts';
import { streamServers, upgradePackages } from './steps/upgrade-streams.ts';

/** Every file an upgrade may write: what a failed one puts back. */
export function upgradeFiles(inst: Installation): string[] {
  const { layout: l, system: s } = inst;
  return [
    l.current, l.installRecord, ...rootHelperFiles(inst), streamBlockPath(s),
    l.unitFile(s.units.panel), l.unitFile(s.units.panel, 'socket'), l.unitFile(s.units['tunnel-server']), l.unitFile(s.units['auth-portal']),
    s.binaries.chisel, `${s.binaries.chisel}.release`, s.binaries.authelia, `${s.binaries.authelia}.release`,
    // not the drop-in an earlier release put on Debian's certbot: removing it goes forward only, since
    // /etc/letsencrypt may be root's again, where Debian's certbot must run as root
    ...renewalUnits(inst).map((u) => u.path),
  ];
}

export async function upgrade(inst: Installation, report: Reporter): Promise<void> {
  const { layout: l, system } = inst;
  const { systemctl } = system.binaries;
  const panel = system.units.panel;
  const owner = await panelOwner(inst);
  // the configuration is the panel's: root reads it (checked) and its user writes it back on failure
  let configText = await readInstalledConfigText(inst);
  const config = await readInstalledConfig(inst);
  const previous = await readlink(l.current).catch(() => null);
  if (!previous) throw new InstallError(`no release in ${l.current}`, 'run relay-panel install first');
  const version = await releaseVersion(inst.options.release);
  if (previous === join('releases', version)) {
    report.step({ step: 'release', status: 'done', message: `release ${version} is already current` });
    return;
  }
  const saved = await saveFiles([...upgradeFiles(inst), ...(await vhostFiles(inst))]);
  const socketWasActive = await isUnitActive(inst, `${panel}.socket`);
  const helperWasActive = await isUnitActive(inst, rootHelperSocketUnit);
  const fix = `journalctl -u ${panel} -n 50 shows why ${join(l.releasesDir, version)} did not start`;
  let step = 'release';
  let restarted = false;
  let added: string[] = [];
  try {
    await placeRelease(inst, inst.options.release);
    report.step({ step, status: 'changed', message: `release ${version} in place (was ${previous}); configuration and data kept` });
    step = 'snapshot';
    report.step({ step, ...(await snapshot(inst)) });
    // a newer release may need users, directories or a layout an earlier one did not have
    const state: InstallState = {};
    // a box installed before the TCP and UDP tunnels lacks nginx's stream module
    step = 'packages';
    const apt = await upgradePackages(inst);
    added = apt.installed;
    report.step({ step, ...apt.outcome });
    step = 'user';
    report.step({ step, ...(await user(inst, state)) });
    step = 'directories';
    report.step({ step, ...(await allDirectories(inst, owner)) });
    step = 'acme';
    report.step({ step, ...(await acme(inst, owner)) });
    // the move of the lineages goes forward only: a rollback keeps the configuration that names where they are
    configText = await readInstalledConfigText(inst);
    // a newer release may run other privileged command lines or need other units
    step = 'privileges';
    report.step({ step, ...(await privileges(inst)) });
    step = 'units';
    report.step({ step, ...(await units(inst, { owner })) });
    step = 'renewals';
    report.step({ step, ...(await renewals(inst)) });
    step = 'vhosts';
    report.step({ step, ...(await defaultServer(inst, owner)) });
    step = 'streams';
    report.step({ step, ...(await streamServers(inst, saved.find((f) => f.path === streamBlockPath(system)))) });
    step = 'health';
    restarted = true;
    if (!(await listenThroughSocket(inst))) await inst.run(systemctl, ['restart', panel]);
    const answered = await waitForPanel(inst, config.listen.port, inst.options.healthTimeoutMs);
    if (answered !== true) throw new InstallError(`release ${version} did not answer /api/health (${answered})`, fix);
    report.step({ step, status: 'done', message: `release ${version} answers /api/health` });
  } catch (e) {
    // nginx may have read the stream block the directories step wrote only from the streams step on
    const vhostsTouched = step === 'vhosts' || step === 'streams' || step === 'health';
    if (configText !== null && (await readInstalledConfigText(inst).catch(() => null)) !== configText) {
      await asPanelUser(inst, owner, { task: 'write-config', file: l.configFile, text: configText }).catch(() => null);
    }
    const back = await rollBack(inst, saved, { socketWasActive, helperWasActive, restarted, vhostsTouched, healthPort: config.listen.port });
    // packages go forward only: the record put back must still say they are install's, for --purge
    if (added.length) await noteCreated(inst, { packages: added }).catch(() => null);
    const how = restarted ? `, which ${back ? 'answers' : 'does not answer either'}` : ' (the panel was not restarted)';
    report.step({
      step, status: 'failed', fix: e instanceof InstallError && e.fix ? e.fix : fix,
      message: `${(e as Error).message}; everything the upgrade changed was put back: rolled back to ${previous}${how}`,
    });
    throw reportedError(new InstallError(`upgrade to ${version} rolled back`, fix));
  }
  // the upgrade worked: old releases go, never the one it replaced (a failed upgrade prunes nothing)
  report.step({ step: 'prune', ...(await pruneReleases(inst, previous)) });
  await recordKeepReleases(inst).catch((e: Error) =>
    report.step({ step: 'prune', status: 'warning', message: `--keep-releases ${inst.options.keepReleases} is not remembered: ${e.message}`, fix: `give it again at the next upgrade` }));
}

/** The least a rolled-back release gets to answer /api/health again. */
const ROLLBACK_HEALTH_MS = 30_000;

async function rollBack(
  inst: Installation,
  saved: Awaited<ReturnType<typeof saveFiles>>,
  o: { socketWasActive: boolean; helperWasActive: boolean; restarted: boolean; vhostsTouched: boolean; healthPort: number },
): Promise<boolean> {
  const { systemctl } = inst.system.binaries;
  const panel = inst.system.units.panel;
  await restoreFiles(saved);
  await inst.run(systemctl, ['daemon-reload']).catch(() => null);
  // nginx serves the vhosts it read at its last reload: the ones put back must be read again
  if (o.vhostsTouched) await hostNginxControl(inst.system).reload().catch(() => null);
  // a release from before the socket unit listens on the port itself
  if (!o.socketWasActive) await inst.run(systemctl, ['disable', '--now', `${panel}.socket`], [1, 5]).catch(() => null);
  // a release from before the root helper reaches root through sudo (its rules are back); else the helper runs the old release again
  if (!o.helperWasActive) await inst.run(systemctl, ['disable', '--now', rootHelperSocketUnit, rootHelperServiceUnit], [1, 5]).catch(() => null);
  else await inst.run(systemctl, ['try-restart', rootHelperServiceUnit], [1, 5]).catch(() => null);
  if (!o.restarted) return true;
  await inst.run(systemctl, ['restart', panel]).catch(() => null);
  // `--health-timeout` is how long the new release gets; the release put back answered before, and
  // on a loaded box its start can take longer than a short timeout chosen for the new one
  return (await waitForHealth(o.healthPort, Math.max(inst.options.healthTimeoutMs, ROLLBACK_HEALTH_MS))) === true;
}
