// The panel's privileged command lines. The panel runs as its own user; the only things it runs
// as root are these exact argv lines, granted one by one in /etc/sudoers.d/relay-panel and reached
// through root-owned launchers (`binaries.nginx` and `binaries.systemctl` of the panel's
// configuration point at them). certbot runs as the panel user (it owns the ACME directories).
// Vhosts are written by the root helper (`<helper> apply`, lib/vhost-helper), never by the panel.
import type { SystemConfig } from '../system/config.ts';
import { nginxArgs } from '../system/host/nginx.ts';
import { SERVICE_ACTIONS, SERVICE_NAMES } from '../system/types.ts';

/** Every argv the panel's host adapters run as root (lib/system/host: nginx.ts, helper-proxy.ts, systemctl.ts, services.ts, certs.ts). */
export function privilegedCommands(config: SystemConfig): string[][] {
  const { nginx, systemctl } = config.binaries;
  const units = SERVICE_NAMES.map((name) => config.units[name]);
  const lines: string[][] = [
    [nginx, ...nginxArgs(config), '-t', '-q'],
    [nginx, ...nginxArgs(config), '-s', 'reload'],
    [systemctl, 'daemon-reload'],
  ];
  if (config.nginx.vhostHelper) lines.push([config.nginx.vhostHelper, 'apply']);
  for (const name of SERVICE_NAMES) {
    const unit = config.units[name];
    for (const action of SERVICE_ACTIONS) if (!(name === 'panel' && action === 'stop')) lines.push([systemctl, action, unit]);
  }
  for (const unit of [...units, config.acme.renewTimer]) {
    lines.push([systemctl, 'is-active', unit], [systemctl, 'enable', '--now', unit]);
  }
  for (const unit of units) lines.push([systemctl, 'show', unit, '--timestamp=utc', '-p', 'ActiveEnterTimestamp', '--value']);
  lines.push([systemctl, 'show', config.acme.renewTimer, '--timestamp=utc', '-p', 'NextElapseUSecRealtime', '-p', 'LastTriggerUSec']);
  return lines;
}

// sudoers(5): in a command's arguments `,` `:` `=` and `\` must be escaped; a space separates words.
function sudoersWord(word: string): string {
  if (!/^[A-Za-z0-9@%+=:,./_-]+$/.test(word)) throw new Error(`cannot grant an argument with special characters: ${word}`);
  return word.replace(/[\\,:=]/g, (c) => `\\${c}`);
}

export function renderSudoers(user: string, commands: string[][]): string {
  const grants = commands.map((argv) => argv.map(sudoersWord).join(' '));
  return [
    '# managed by relay-panel: the panel user may run exactly these command lines as root, nothing else',
    `Defaults:${user} !requiretty`,
    `${user} ALL=(root) NOPASSWD: \\`,
    grants.map((g) => `    ${g}`).join(', \\\n'),
    '',
  ].join('\n');
}

/** A launcher the panel runs instead of the program: sudo either grants the exact line or refuses. */
export function renderWrapper(sudo: string, binary: string): string {
  return `#!/bin/sh\n# managed by relay-panel: runs ${binary} as root when /etc/sudoers.d/relay-panel grants this exact command line\nexec ${sudo} -n ${binary} "$@"\n`;
}

/**
 * The root helper's launcher: the current release's bundle, run by the node the installer ran,
 * with the root-owned helper configuration; the request comes on stdin, the action from sudo's line.
 */
export function renderHelperLauncher(node: string, server: string, helperConfig: string): string {
  return `#!/bin/sh\n# managed by relay-panel: the root vhost helper (one action, apply, with a JSON request on stdin)\nexec ${node} ${server} vhosts --helper-config ${helperConfig} "$@"\n`;
}
