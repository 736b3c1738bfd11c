// `relay-panel uninstall`: the units it made (renewals included), the vhosts, fail2ban and ufw as
// install found them, the release, its code cache and root's TLS copies go; the configuration, the
// data, the panel's certificates and the users who own them stay (an install after it gives back a
// working box) unless --purge, which removes exactly what install created (purge.ts).
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { removeRenewalUnits } from './renewals.ts';
import { nginxArgs } from '../system/proxy/host.ts';
import { routesDirOf } from '../system/config.ts';
import { restoreDebianDefaultSite } from './debian-site.ts';
import { relayVhostFiles, removeLockedTree } from './files.ts';
import { readInstallRecord } from './install-record.ts';
import { purge } from './purge.ts';
import { removeStreamBlock } from './stream-block.ts';
import { unharden } from './unharden.ts';
import type { Installation } from './installation.ts';
import { ROOT_HELPER_UNIT } from './privileges.ts';
import type { Reporter } from './report.ts';

async function removeRelayVhosts(dir: string): Promise<string[]> {
  const names = await relayVhostFiles(dir);
  for (const name of names) await rm(join(dir, name), { force: true });
  return names;
}

export async function uninstall(inst: Installation, report: Reporter): Promise<void> {
  const { system: s, layout: l, options } = inst;
  const record = await readInstallRecord(l.installRecord);
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
  await rm(routesDirOf(s), { recursive: true, force: true });
  const removed = await removeRelayVhosts(s.nginx.sitesAvailable);
  // the TCP and UDP tunnels' servers and their stream block, before the reload below lets go of their ports
  await removeStreamBlock(s);
  // the relay's default server is gone: Debian's takes its place again
  const relinked = await restoreDebianDefaultSite(s.nginx);
  const reloaded = await inst.run(s.binaries.nginx, [...nginxArgs(s), '-s', 'reload']).then(() => true, () => false);
  report.step({
    step: 'vhosts', status: reloaded ? 'changed' : 'warning',
    message: `removed ${removed.length} relay vhosts${relinked ? ', Debian\'s default site linked again' : ''}${reloaded ? ', nginx reloaded' : ''}`,
    ...(reloaded ? {} : { fix: 'nginx was not running or could not reload: systemctl reload nginx' }),
  });

  report.step({ step: 'harden', ...(await unharden(inst, record.created)) });

  if (options.purge) {
    for (const outcome of await purge(inst, record.created)) report.step({ step: 'purge', ...outcome });
  }

  // an earlier release's sudo rules, if an upgrade never removed them
  await rm(l.legacy.sudoersFile, { force: true });
  // the record of what install made stays until --purge: an install after this one still knows
  for (const name of await readdir(l.appDir).catch(() => [] as string[])) {
    if (options.purge || join(l.appDir, name) !== l.installRecord) await rm(join(l.appDir, name), { recursive: true, force: true });
  }
  if (options.purge) await rm(l.appDir, { recursive: true, force: true });
  // the panel's (systemd's CacheDirectory=): removed without following anything its user put there
  await removeLockedTree(l.cacheDir);
  // root's copies of what nginx loaded (the root helper's): nothing serves them any more
  await rm(s.nginx.tlsDir, { recursive: true, force: true });
  const kept = options.purge ? '' : ` (${l.installRecord} kept: what install made, for --purge)`;
  report.step({ step: 'files', status: 'changed', message: `removed ${l.appDir}${kept}, the root helper's configuration with it, ${l.cacheDir} and ${s.nginx.tlsDir}` });

  if (!options.purge) {
    const users = [options.user, s.systemd.tunnelUser, s.systemd.portalUser].filter((u) => u && u !== 'root').join(', ');
    report.step({ step: 'data', status: 'skipped', message: `kept ${l.configDir}, ${l.dataDir}, the panel's certificates and ${users || 'the files'}, who own them (--purge removes them)` });
  }
}
