// The bundle's operator commands: install, upgrade, uninstall, doctor.
import type { PublicLocations } from '../system/types.ts';
import type { Command } from './commands.ts';
import { doctor } from './doctor.ts';
import { install } from './install.ts';
import { readInstallRecord, withRecordedChoices } from './install-record.ts';
import { layout } from './layout.ts';
import { openInstallation } from './installation.ts';
import { parseCommandOptions, USAGE } from './options.ts';
import { createReporter, wasReported } from './report.ts';
import { InstallError } from './host-checks.ts';
import { uninstall } from './uninstall.ts';
import { upgrade } from './upgrade.ts';

/** Runs a command and returns the process exit status. */
export async function runCommand(command: Command, argv: string[], serverFile: string, publicLocations?: PublicLocations): Promise<number> {
  let options;
  try {
    options = parseCommandOptions(argv, serverFile);
  } catch (e) {
    process.stderr.write(`relay-panel ${command}: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const report = createReporter(options.json);
  // every command keeps the install's choices (its --system-config: the box's paths) unless given again
  options = withRecordedChoices(options, await readInstallRecord(layout(options.prefix).installRecord));
  const inst = openInstallation(options, undefined, undefined, publicLocations);
  try {
    if (command === 'install') await install(inst, report);
    else if (command === 'upgrade') await upgrade(inst, report);
    else if (command === 'uninstall') await uninstall(inst, report);
    else return (await doctor(inst, report)) ? 0 : 1;
    return 0;
  } catch (e) {
    if (!wasReported(e)) {
      const fix = e instanceof InstallError ? e.fix : undefined;
      report.step({ step: command, status: 'failed', message: (e as Error).message, ...(fix ? { fix } : {}) });
    }
    return 1;
  }
}
