// `relay-panel upgrade`, run from the new release: put it beside the old one, switch `current`,
// restart, and go back to the previous release when the panel does not answer /api/health.
import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { waitForHealth } from './health.ts';
import { InstallError } from './host-checks.ts';
import { privileges, units } from './steps/panel.ts';
import { placeRelease } from './steps/release.ts';
import type { Installation } from './installation.ts';
import { readInstalledConfig } from './installed-config.ts';
import { pointLink } from './files.ts';
import { reportedError, type Reporter } from './report.ts';

export async function upgrade(inst: Installation, report: Reporter): Promise<void> {
  const { layout: l, system } = inst;
  const config = await readInstalledConfig(inst);
  const previous = await readlink(l.current).catch(() => null);
  if (!previous) throw new InstallError(`no release in ${l.current}`, 'run relay-panel install first');
  const { version, changed } = await placeRelease(inst, inst.options.release);
  if (!changed) {
    report.step({ step: 'release', status: 'done', message: `release ${version} is already current` });
    return;
  }
  report.step({ step: 'release', status: 'changed', message: `release ${version} in place (was ${previous}); configuration and data kept` });
  // a newer release may run other privileged command lines or need another unit
  report.step({ step: 'privileges', ...(await privileges(inst)) });
  report.step({ step: 'units', ...(await units(inst, {})) });
  const restart = () => inst.run(system.binaries.systemctl, ['restart', system.units.panel]);
  await restart();
  const healthy = await waitForHealth(config.listen.port, inst.options.healthTimeoutMs);
  if (healthy) {
    report.step({ step: 'health', status: 'done', message: `release ${version} answers /api/health` });
    return;
  }
  await pointLink(l.current, previous);
  await restart();
  const back = await waitForHealth(config.listen.port, inst.options.healthTimeoutMs);
  const fix = `journalctl -u ${system.units.panel} -n 50 shows why ${join(l.releasesDir, version)} did not start`;
  report.step({
    step: 'health', status: 'failed', fix,
    message: `release ${version} did not answer /api/health; rolled back to ${previous}${back ? ', which answers' : ', which does not answer either'}`,
  });
  throw reportedError(new InstallError(`upgrade to ${version} rolled back`, fix));
}
