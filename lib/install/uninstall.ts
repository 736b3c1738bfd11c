// `relay-panel uninstall`: units, vhosts, sudo rules, the release, its code cache and the user go; the configuration
// and data stay (a later install picks them up) unless --purge.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { nginxArgs } from '../system/host/nginx.ts';
import { ensureDir, relayVhostFiles } from './files.ts';
import { panelDirectories } from './steps/host.ts';
import type { Installation } from './installation.ts';
import type { Reporter } from './report.ts';

async function removeRelayVhosts(dir: string): Promise<string[]> {
  const names = await relayVhostFiles(dir);
  for (const name of names) await rm(join(dir, name), { force: true });
  return names;
}

export async function uninstall(inst: Installation, report: Reporter): Promise<void> {
  const { system: s, layout: l, options } = inst;
  const units = [s.units.panel, s.units['tunnel-server'], s.units['auth-portal']];
  for (const unit of units) await inst.run(s.binaries.systemctl, ['disable', '--now', unit], [1, 5]).catch(() => null);
  for (const unit of units) await rm(l.unitFile(unit), { force: true });
  await inst.run(s.binaries.systemctl, ['daemon-reload']).catch(() => null);
  report.step({ step: 'units', status: 'changed', message: `stopped and removed ${units.join(', ')}` });

  await removeRelayVhosts(s.nginx.sitesEnabled);
  const removed = await removeRelayVhosts(s.nginx.sitesAvailable);
  const reloaded = await inst.run(s.binaries.nginx, [...nginxArgs(s), '-s', 'reload']).then(() => true, () => false);
  report.step({
    step: 'vhosts', status: reloaded ? 'changed' : 'warning', message: `removed ${removed.length} relay vhosts${reloaded ? ', nginx reloaded' : ''}`,
    ...(reloaded ? {} : { fix: 'nginx was not running or could not reload: systemctl reload nginx' }),
  });

  await rm(l.sudoersFile, { force: true });
  await rm(l.appDir, { recursive: true, force: true });
  await rm(l.cacheDir, { recursive: true, force: true });
  const dirs = panelDirectories(inst);
  for (const dir of dirs.shared) await ensureDir(dir, 0o755, { uid: 0, gid: 0 });
  report.step({ step: 'files', status: 'changed', message: `removed ${l.sudoersFile}, ${l.appDir} and ${l.cacheDir}` });

  if (options.user !== 'root') {
    const gone = await inst.run(inst.tools.userdel, [options.user], [6]);
    report.step({ step: 'user', status: gone.exitCode === 0 ? 'changed' : 'done', message: gone.exitCode === 0 ? `removed user ${options.user}` : `no user ${options.user}` });
  }

  if (options.purge) {
    for (const dir of [l.configDir, l.dataDir, ...dirs.own]) await rm(dir, { recursive: true, force: true });
    await rm(l.adminP12, { force: true });
    report.step({ step: 'data', status: 'changed', message: `purged ${l.configDir}, ${l.dataDir}, the client CA, chisel and Authelia files, sites; Let's Encrypt certificates kept` });
  } else {
    report.step({ step: 'data', status: 'skipped', message: `kept ${l.configDir} and ${l.dataDir} (--purge removes them)` });
  }
}
