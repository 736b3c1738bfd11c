// `nginx-reload --config <file>`: certbot's deploy hook on a box without a root helper (`--user
// root`), where the panel runs the programs itself. It makes the per-name certificate map from the
// renewed files, then reloads nginx and waits for the outcome: the reload of the panel's own nginx
// control (lib/system/proxy/host.ts). `systemctl reload nginx` alone would leave a renewed name's old
// certificate in the map until the panel's next change. A box with a root helper reloads through it
// (`relay-panel-root nginx-reload`), which makes the map the same way.
import { ConfigSchema } from './config.ts';
import { errorMessage } from './errors.ts';
import { readOwnedText } from './system/common/owned-file.ts';
import { notRootsAlone } from './system/common/fs.ts';
import { systemConfig } from './system/config.ts';
import { hostNginxControl } from './system/proxy/host.ts';

const USAGE = 'usage: relay-panel nginx-reload --config <the panel\'s configuration file>';
const MAX_CONFIG_BYTES = 1024 * 1024;

/** Reloads nginx as the configuration at `--config` describes it; answers the exit code. */
export async function runNginxReload(args: readonly string[]): Promise<number> {
  const at = args.indexOf('--config');
  const file = at >= 0 ? args[at + 1] : undefined;
  if (!file || args.length !== 2) {
    console.error(USAGE);
    return 2;
  }
  try {
    // run as root by certbot, it runs the binaries the file names: only root may steer root
    // (as the root helper's own configuration, lib/root-helper/config.ts), then no link, bounded
    const problem = await notRootsAlone(file);
    if (problem) throw new Error(`refused: ${problem}`);
    const text = await readOwnedText(file, { owners: [process.geteuid?.() ?? 0], maxBytes: MAX_CONFIG_BYTES });
    if (text === null) throw new Error(`${file} does not exist`);
    const parsed = ConfigSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${file} is invalid: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`);
    const system = systemConfig(parsed.data.system);
    if (system.driver !== 'host') throw new Error(`${file} names the sandbox: there is no nginx to reload`);
    if (system.rootHelper) throw new Error(`${file} names a root helper: reload through it (${system.rootHelper.call} nginx-reload)`);
    await hostNginxControl(system).reload();
    console.log('relay-panel: nginx reloaded with the certificate map made');
    return 0;
  } catch (error) {
    console.error(`relay-panel nginx-reload: ${errorMessage(error)}`);
    return 1;
  }
}
