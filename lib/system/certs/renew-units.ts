// The panel's own certificate renewals: a timer and the service of its name that run
// `certbot renew` in the panel's ACME directories (config.acme), as the panel's user, in the
// sandbox of the box's other unprivileged services. Debian's certbot.timer and certbot.service
// stay as the package made them, for the operator's own lineages in /etc/letsencrypt: root's
// certbot never reads what the panel's user wrote, and the panel's user never gets root's.
//
// The installer writes these units as root (they are root's files in the unit directory); the
// panel enables the timer through the root helper (`unit renew-timer enable`, certs.ts).
import { join } from 'node:path';
import type { SystemConfig } from '../config.ts';
import { SystemError } from '../types.ts';
import { unprivilegedSandbox } from '../systemd/units.ts';

/** Debian's timer: the panel's renewals must never take its name (a unit there would replace the package's). */
const DEBIAN_TIMER = 'certbot.timer';

export interface RenewUnitNames {
  timer: string;
  service: string;
}

export interface RenewUnitFile {
  /** the unit's name, as systemctl takes it */
  name: string;
  /** where it goes: the configured unit directory */
  path: string;
  content: string;
}

/** The timer config.acme.renewTimer names and the service it starts (the same name, `.service`). */
export function renewUnitNames(system: SystemConfig): RenewUnitNames {
  const timer = system.acme.renewTimer;
  if (!timer.endsWith('.timer')) throw new SystemError(`acme.renewTimer '${timer}' does not name a timer`);
  if (timer === DEBIAN_TIMER) {
    throw new SystemError(`acme.renewTimer is Debian's ${DEBIAN_TIMER}: the panel's renewals need a timer of their own (relay-panel-renew.timer)`);
  }
  return { timer, service: `${timer.slice(0, -'.timer'.length)}.service` };
}

const quoted = (text: string) => (/^[A-Za-z0-9_@+=:,./%-]+$/.test(text) ? text : `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);

/**
 * One word of ExecStart as systemd reads it: `%` is a specifier and `$` a variable there, so both
 * are doubled; a word with a blank, quote or backslash is double-quoted with C escapes.
 */
export function execWord(word: string): string {
  return quoted(word.replace(/%/g, '%%').replace(/\$/g, '$$$$'));
}

/** An Environment= assignment: specifiers are expanded there too, variables are not. */
export function environmentLine(name: string, value: string): string {
  return `Environment=${quoted(`${name}=${value.replace(/%/g, '%%')}`)}`;
}

/**
 * `certbot renew` of every lineage in the panel's directories. No random sleep (certbot's own up to
 * 8 minutes when not on a terminal): the timer's RandomizedDelaySec already spreads the runs, as in
 * Debian's certbot.service. Each lineage's renewal configuration names its deploy hook (the root
 * helper's launcher, `nginx-reload`), and so does renewal-hooks/deploy of the panel's configDir.
 */
export function renewCommand(system: SystemConfig): string[] {
  const { configDir, workDir, logsDir } = system.acme;
  return [system.binaries.certbot, 'renew', '--non-interactive', '--no-random-sleep-on-renew',
    '--config-dir', configDir, '--work-dir', workDir, '--logs-dir', logsDir];
}

/**
 * As the panel's user: the unprivileged sandbox with exactly the four ACME directories writable;
 * W+X memory allowed because the deploy hook runs node (root-call), whose JIT needs it.
 * A panel run as root (runAs null) has no privilege boundary to keep between it and certbot: the
 * service runs as root like Debian's certbot.service (PrivateTmp), without a way to gain more.
 */
function hardening(system: SystemConfig, writable: readonly string[]): string[] {
  const user = system.systemd.runAs;
  if (user === null) return ['NoNewPrivileges=yes', 'PrivateTmp=yes'];
  return [`User=${user}`, `Group=${user}`, ...unprivilegedSandbox({ writable: [...writable], memoryDenyWriteExecute: false })];
}

/** The four ACME directories: what the renewals write, unless the installer names the directories holding them. */
export function acmeDirs(system: SystemConfig): string[] {
  const { configDir, workDir, logsDir, webroot } = system.acme;
  return [configDir, workDir, logsDir, webroot];
}

/**
 * `writable`: the directories its sandbox may write, by default the four ACME ones; the installer
 * names the panel's top-level directories holding them instead, since systemd (root) would follow a
 * link the panel's user put in place of a directory inside its own.
 */
export function renderRenewService(system: SystemConfig, writable: readonly string[] = acmeDirs(system), environment: Record<string, string> = {}): string {
  const { timer } = renewUnitNames(system);
  const ca = system.acme.caBundle;
  return [
    '# managed by relay-panel',
    '[Unit]',
    "Description=Renew relay-panel's Let's Encrypt certificates",
    'After=network-online.target',
    'Wants=network-online.target',
    // no [Install]: started by its timer only, never at boot by itself
    `# started by ${timer}`,
    '',
    '[Service]',
    'Type=oneshot',
    `ExecStart=${renewCommand(system).map(execWord).join(' ')}`,
    // the ACME server's HTTPS CA when it is not a public one (tests: pebble's)
    ...(ca ? [environmentLine('REQUESTS_CA_BUNDLE', ca)] : []),
    // what a DNS plugin reads from the environment alone (renewal-env.ts: route53's credentials)
    ...Object.entries(environment).map(([name, value]) => environmentLine(name, value)),
    ...hardening(system, writable),
    '',
  ].join('\n');
}

/** Twice a day at a random moment, as Debian's certbot.timer; a run missed while the box was off runs at boot. */
export function renderRenewTimer(system: SystemConfig): string {
  const { service } = renewUnitNames(system);
  return [
    '# managed by relay-panel',
    '[Unit]',
    "Description=Renew relay-panel's Let's Encrypt certificates twice a day",
    '',
    '[Timer]',
    'OnCalendar=*-*-* 00,12:00:00',
    'RandomizedDelaySec=43200',
    'Persistent=true',
    `Unit=${service}`,
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
  ].join('\n');
}

/** Both units with their paths in the configured unit directory: the service first, then its timer. */
export function renewUnitFiles(system: SystemConfig, writable: readonly string[] = acmeDirs(system), environment: Record<string, string> = {}): RenewUnitFile[] {
  const names = renewUnitNames(system);
  return [
    { name: names.service, path: join(system.systemd.unitDir, names.service), content: renderRenewService(system, writable, environment) },
    { name: names.timer, path: join(system.systemd.unitDir, names.timer), content: renderRenewTimer(system) },
  ];
}
