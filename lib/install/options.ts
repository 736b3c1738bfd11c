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
}

export const USAGE = `usage: relay-panel <command> [options]
  install    [--ip ADDRESS] [--no-harden] [--no-packages] [--no-downloads] [--health-timeout SECONDS]   (as root)
  upgrade    [--health-timeout SECONDS] [--no-downloads]   (run from the new release)
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
      'no-harden': { type: 'boolean', default: false },
      'no-packages': { type: 'boolean', default: false },
      'no-downloads': { type: 'boolean', default: false },
      'system-config': { type: 'string' },
      'health-timeout': { type: 'string', default: '30' },
      purge: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!/^[a-z_][a-z0-9_-]{0,30}$/.test(values.user)) throw new Error(`--user ${values.user} is not a valid user name`);
  const seconds = Number(values['health-timeout']);
  if (!Number.isFinite(seconds) || seconds < 0) throw new Error('--health-timeout takes a number of seconds');
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
  };
}
