// `relay-panel uninstall`: units, vhosts, sudo rules, the release, its code cache and the user go; the configuration
// and data stay (a later install picks them up) unless --purge.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { removeRenewalUnits } from './renewals.ts';
import { nginxArgs } from '../system/host/nginx.ts';
import { pathExists } from '../system/common/fs.ts';
import { restoreDebianDefaultSite } from './debian-site.ts';
import { relayVhostFiles } from './files.ts';
import type { Outcome } from './steps/step.ts';
import { panelDirs } from './panel-dirs.ts';
import type { Installation } from './installation.ts';
import { ROOT_HELPER_UNIT } from './privileges.ts';
import type { Reporter } from './report.ts';

async function removeRelayVhosts(dir: string): Promise<string[]> {
  const names = await relayVhostFiles(dir);
  for (const name of names) await rm(join(dir, name), { force: true });
  return names;
}

/**
 * The fail2ban jail goes (fail2ban itself and its Debian jails stay), and so does the firewall rule
 * of the IP panel's port, which nothing serves any more; ssh, http and https stay open: other
 * services of the box may use them, and closing ssh could lock the operator out.
 */
async function unharden(inst: Installation): Promise<Outcome> {
  const { layout: l, system: s } = inst;
  // the jail is written by install's harden step alone: without it, harden never ran here
  if (!(await pathExists(l.fail2banJail))) return { status: 'done', message: 'install did not harden this box (no fail2ban jail of the panel)' };
  await rm(l.fail2banJail, { force: true });
  await inst.run(s.binaries.systemctl, ['try-restart', 'fail2ban']).catch(() => null);
  const done = [`removed ${l.fail2banJail}`];
  if (await pathExists(inst.tools.ufw)) {
    await inst.run(inst.tools.ufw, ['delete', 'allow', `${s.ports.ipPanel}/tcp`]).catch(() => null);
    done.push(`ufw no longer allows ${s.ports.ipPanel}`);
  }
  return { status: 'changed', message: done.join('; ') };
}

export async function uninstall(inst: Installation, report: Reporter): Promise<void> {
  const { system: s, layout: l, options } = inst;
  const units = [s.units.panel, s.units['tunnel-server'], s.units['auth-portal'], ROOT_HELPER_UNIT];
  const sockets = [s.units.panel, ROOT_HELPER_UNIT];
  const names = [...units, ...sockets.map((u) => `${u}.socket`)];
  for (const unit of names) await inst.run(s.binaries.systemctl, ['disable', '--now', unit], [1, 5]).catch(() => null);
  for (const unit of units) await rm(l.unitFile(unit), { force: true });
  for (const unit of sockets) await rm(l.unitFile(unit, 'socket'), { force: true });
  const renewal = await removeRenewalUnits(inst);
  await inst.run(s.binaries.systemctl, ['daemon-reload']).catch(() => null);
  report.step({ step: 'units', status: 'changed', message: `stopped and removed ${[...names, ...renewal].join(', ')}` });

  await removeRelayVhosts(s.nginx.sitesEnabled);
  const removed = await removeRelayVhosts(s.nginx.sitesAvailable);
  // the relay's default server is gone: Debian's takes its place again
  const relinked = await restoreDebianDefaultSite(s.nginx);
  const reloaded = await inst.run(s.binaries.nginx, [...nginxArgs(s), '-s', 'reload']).then(() => true, () => false);
  report.step({
    step: 'vhosts', status: reloaded ? 'changed' : 'warning',
    message: `removed ${removed.length} relay vhosts${relinked ? ', Debian\'s default site linked again' : ''}${reloaded ? ', nginx reloaded' : ''}`,
    ...(reloaded ? {} : { fix: 'nginx was not running or could not reload: systemctl reload nginx' }),
  });

  report.step({ step: 'harden', ...(await unharden(inst)) });

  // an earlier release's sudo rules, if an upgrade never removed them
  await rm(l.legacy.sudoersFile, { force: true });
  await rm(l.appDir, { recursive: true, force: true });
  await rm(l.cacheDir, { recursive: true, force: true });
  report.step({ step: 'files', status: 'changed', message: `removed ${l.appDir} (the root helper's configuration included) and ${l.cacheDir}` });

  if (options.user !== 'root') {
    const gone = await inst.run(inst.tools.userdel, [options.user], [6]);
    report.step({ step: 'user', status: gone.exitCode === 0 ? 'changed' : 'done', message: gone.exitCode === 0 ? `removed user ${options.user}` : `no user ${options.user}` });
  }

  if (options.purge) {
    for (const dir of panelDirs(inst)) await rm(dir.path, { recursive: true, force: true });
    await rm(l.adminP12, { force: true });
    report.step({ step: 'data', status: 'changed', message: `purged ${l.configDir}, ${l.dataDir}, the client CA, chisel and Authelia files, sites; Let's Encrypt certificates kept` });
  } else {
    report.step({ step: 'data', status: 'skipped', message: `kept ${l.configDir} and ${l.dataDir} (--purge removes them)` });
  }
}
