// Command-line flags of install, upgrade, uninstall and doctor.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { SystemConfigInput } from '../system/config.ts';

export interface CommandOptions {
  prefix: string;
  json: boolean;
  /** the panel's system user */
  user: string;
  ip?: string;
  harden: boolean;
  /** apt-get for missing packages (off: the packages must be there) */
  packages: boolean;
  /** chisel and Authelia pinned downloads (off: the panel downloads them at onboarding) */
  downloads: boolean;
  /** JSON merged over the system section's defaults (paths, ports, binaries) */
  system: SystemConfigInput;
  /** the release being installed: the folder of the running bundle */
  release: string;
  node: string;
  healthTimeoutMs: number;
  purge: boolean;
  /** how many releases a working upgrade leaves in releases/ (default KEEP_RELEASES) */
  keepReleases?: number;
  /** the install choices given on this command line; the others come from the install's record (install-record.ts) */
  given?: Partial<Record<RememberedChoice, true>>;
}

/** The install choices an upgrade (or a later install) keeps unless the operator says otherwise. */
export const REMEMBERED = ['ip', 'harden', 'packages', 'downloads', 'keepReleases', 'system'] as const;
export type RememberedChoice = (typeof REMEMBERED)[number];

/** The new release, the one it replaced (the next failed upgrade's way back) and one more. */
export const KEEP_RELEASES = 3;

export const USAGE = `usage: relay-panel <command> [options]
  install    [--ip ADDRESS] [--no-harden] [--no-packages] [--no-downloads] [--health-timeout SECONDS]   (as root)
  upgrade    [--health-timeout SECONDS] [--no-downloads | --downloads] [--keep-releases N]   (run from the new release)
             a working upgrade keeps N releases (default ${KEEP_RELEASES}, at least 2): the new one, the one
             it replaced and the others placed last; it removes the older ones; N is remembered
             install's --ip, --no-harden, --no-packages, --no-downloads and --system-config are
             remembered: a later upgrade, install or uninstall keeps them unless given again
             (--downloads turns downloads back on)
  uninstall  [--purge]
  doctor
  every command: [--json] [--prefix DIR] [--user NAME] [--system-config FILE]
  no command: [--config FILE]   run the panel itself`;

export function parseCommandOptions(argv: string[], serverFile: string): CommandOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      prefix: { type: 'string', default: '/' },
      json: { type: 'boolean', default: false },
      user: { type: 'string', default: 'relay-panel' },
      ip: { type: 'string' },
      'no-harden': { type: 'boolean' },
      'no-packages': { type: 'boolean' },
      'no-downloads': { type: 'boolean' },
      downloads: { type: 'boolean' },
      'system-config': { type: 'string' },
      'health-timeout': { type: 'string', default: '30' },
      purge: { type: 'boolean', default: false },
      'keep-releases': { type: 'string' },
    },
    strict: true,
  });
  // chisel's and Authelia's users are named after it (`<user>-authelia`), within useradd's 32
  if (!/^[a-z_][a-z0-9_-]{0,22}$/.test(values.user)) throw new Error(`--user ${values.user} is not a valid user name of at most 23 characters`);
  if (values.downloads && values['no-downloads']) throw new Error('--downloads and --no-downloads contradict each other');
  const seconds = Number(values['health-timeout']);
  const given: Partial<Record<RememberedChoice, true>> = {
    ...(values.ip !== undefined ? { ip: true } : {}),
    ...(values['no-harden'] ? { harden: true } : {}),
    ...(values['no-packages'] ? { packages: true } : {}),
    ...(values['no-downloads'] || values.downloads ? { downloads: true } : {}),
    ...(values['keep-releases'] !== undefined ? { keepReleases: true } : {}),
    ...(values['system-config'] !== undefined ? { system: true } : {}),
  };
  if (!Number.isFinite(seconds) || seconds < 0) throw new Error('--health-timeout takes a number of seconds');
  const keepReleases = Number(values['keep-releases'] ?? KEEP_RELEASES);
  if (!Number.isInteger(keepReleases) || keepReleases < 2) throw new Error('--keep-releases takes a whole number of 2 or more (the new release and the one it replaced)');
  return {
    prefix: resolve(values.prefix),
    json: values.json,
    user: values.user,
    ...(values.ip !== undefined ? { ip: values.ip } : {}),
    harden: !values['no-harden'],
    packages: !values['no-packages'],
    downloads: !values['no-downloads'],
    system: values['system-config'] ? (JSON.parse(readFileSync(values['system-config'], 'utf8')) as SystemConfigInput) : {},
    release: dirname(resolve(serverFile)),
    node: process.execPath,
    healthTimeoutMs: seconds * 1000,
    purge: values.purge,
    keepReleases,
    given,
  };
}
