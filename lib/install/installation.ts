// One installation seen by the commands: its layout, the system configuration the installer and the
// root helper drive (real binaries), and the one the panel gets (root only through the root helper).
import type { PublicLocations } from '../system/types.ts';
import { join } from 'node:path';
import { systemConfig, type SystemConfig, type SystemConfigInput } from '../system/config.ts';
import { run, type ExecResult } from '../system/common/exec.ts';
import { layout, type Layout } from './layout.ts';
import type { CommandOptions } from './options.ts';

export type Runner = (binary: string, args: readonly string[], okExitCodes?: number[]) => Promise<ExecResult>;

export const defaultRunner: Runner = (binary, args, okExitCodes) =>
  run(binary, args, { timeoutMs: 600_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, ...(okExitCodes ? { okExitCodes } : {}) });

/** Binaries the commands use besides the configured ones; absolute, like every exec here. */
/** The panel's loopback UDP port for nginx's traffic log: beside its own TCP port 3100. */
export const DEFAULT_TRAFFIC_PORT = 3101;

export const TOOLS = {
  aptGet: '/usr/bin/apt-get',
  dpkgQuery: '/usr/bin/dpkg-query',
  getent: '/usr/bin/getent',
  useradd: '/usr/sbin/useradd',
  usermod: '/usr/sbin/usermod',
  userdel: '/usr/sbin/userdel',
  pkill: '/usr/bin/pkill',
  ufw: '/usr/sbin/ufw',
  fail2ban: '/usr/bin/fail2ban-client',
};

export interface Installation {
  options: CommandOptions;
  layout: Layout;
  /** what the installer and the root helper run: the real programs */
  system: SystemConfig;
  /** what the panel runs: the same, with `rootHelper` for everything that needs root */
  panelSystem: SystemConfig;
  run: Runner;
  tools: typeof TOOLS;
  /** nginx locations open without a client certificate, from the route table (the CLI passes them) */
  publicLocations: PublicLocations;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Merges `over` into `base` object by object (arrays and values replace). */
export function deepMerge<T>(base: T, over: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(out[k], v);
  return out as T;
}

/**
 * Who runs what: the panel as its user, chisel and Authelia as users of their own (named after it)
 * who cannot reach the root helper's socket or write the panel's state; null: root.
 */
export function serviceUsers(user: string): { runAs: string | null; tunnelUser: string | null; portalUser: string | null } {
  if (user === 'root') return { runAs: null, tunnelUser: null, portalUser: null };
  return { runAs: user, tunnelUser: `${user}-chisel`, portalUser: `${user}-authelia` };
}

export function openInstallation(
  options: CommandOptions,
  runner: Runner = defaultRunner,
  tools: typeof TOOLS = TOOLS,
  publicLocations: PublicLocations = { exact: [], prefix: [] },
): Installation {
  const at = (p: string) => join(options.prefix, p);
  const l0 = layout(options.prefix);
  const defaults: SystemConfigInput = {
    driver: 'host',
    pki: { dir: join(l0.configDir, 'pki') },
    // nginx sends tunnel and site traffic to the panel over loopback UDP (lib/traffic)
    nginx: { selfSignedDir: join(l0.configDir, 'ip-panel-cert'), helpDir: at('var/www/relay-panel-help'), trafficPort: DEFAULT_TRAFFIC_PORT },
    systemd: { unitDir: at('etc/systemd/system'), ...serviceUsers(options.user) },
  };
  const system = systemConfig(deepMerge(defaults, options.system));
  const l = layout(options.prefix, system.systemd.unitDir);
  // a panel running as root runs the programs itself; any other goes through the root helper
  const panelSystem = options.user === 'root' ? system : { ...system, rootHelper: { socket: l.helperSocket, call: l.rootCall } };
  return { options, layout: l, system, panelSystem, run: runner, tools, publicLocations };
}
