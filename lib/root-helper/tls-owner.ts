// Whose files the TLS sources must be. Root trusts a source only when the user expected to have
// written it owns it: a file of anyone else (root's own key, hard-linked or reached through a
// planted directory link) is refused. Never root as well as the panel's user: a hard link to a
// root-only key would then pass.
import { execFile } from 'node:child_process';
import type { SystemConfig } from '../system/config.ts';
import { SystemError } from '../system/types.ts';

const GETENT = '/usr/bin/getent';

/**
 * The panel's user (`systemd.runAs`, looked up each time: uninstall and install again may give the
 * name another uid) when the helper runs as root; root when the panel runs as root (runAs null);
 * the helper's own user when it is not root (tests), which can read no more than it could anyway.
 */
export async function tlsSourceOwners(config: SystemConfig): Promise<number[]> {
  const euid = process.geteuid?.() ?? 0;
  if (euid !== 0) return [euid];
  const user = config.systemd.runAs;
  if (user === null) return [0];
  return [await uidOf(user)];
}

function uidOf(user: string): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(GETENT, ['passwd', user], { timeout: 10_000, encoding: 'utf8' }, (error, stdout) => {
      const uid = Number(stdout.split(':')[2]);
      if (error || !stdout.startsWith(`${user}:`) || !Number.isInteger(uid)) {
        reject(new SystemError(`the panel's user ${user} is unknown to ${GETENT} passwd: its TLS files cannot be checked`));
      } else resolve(uid);
    });
  });
}
