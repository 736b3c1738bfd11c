// Debian's certbot.timer starts certbot.service, which runs `certbot renew` as root in certbot's
// directories, and the panel's user owns those directories (it issues certificates itself). A
// root certbot there would follow any link that user planted. This drop-in runs the timer's
// renewals as the panel's user instead, in the sandbox of the box's other unprivileged services,
// with the ACME CA bundle the panel's own certbot runs use.
import { join } from 'node:path';
import type { SystemConfig } from '../system/config.ts';
import { unprivilegedSandbox } from '../system/host/units.ts';

/** `certbot` for the `certbot.timer` the configuration names: the timer starts the service of its name. */
function renewalService(system: SystemConfig): string {
  return system.acme.renewTimer.replace(/\.(timer|service)$/, '');
}

export function certbotDropInPath(system: SystemConfig): string {
  return join(system.systemd.unitDir, `${renewalService(system)}.service.d`, 'relay-panel.conf');
}

/** null when the panel runs as root: certbot's renewals stay as the package made them. */
export function renderCertbotDropIn(system: SystemConfig): string | null {
  const user = system.systemd.runAs;
  if (user === null) return null;
  const { configDir, workDir, logsDir, webroot, caBundle } = system.acme;
  return [
    '# managed by relay-panel: certbot renews as the panel\'s user, which owns its directories',
    '[Service]',
    `User=${user}`,
    `Group=${user}`,
    ...(caBundle ? [`Environment=REQUESTS_CA_BUNDLE=${caBundle}`] : []),
    // the deploy hook runs node (root-call), whose JIT needs memory both writable and executable
    ...unprivilegedSandbox({ writable: [configDir, workDir, logsDir, webroot], memoryDenyWriteExecute: false }),
    '',
  ].join('\n');
}
