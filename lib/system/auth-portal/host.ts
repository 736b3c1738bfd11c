// Host auth portal: pinned Authelia, its files, a systemd unit, TOTP through its storage CLI.
import { createPortalFiles, portalTotpSecret } from './portal-files.ts';
import { sharePortalFile, shareStorage } from './portal-storage.ts';
import { serviceUser, type SystemConfig } from '../config.ts';
import { run } from '../common/exec.ts';
import { assertUsername } from '../common/names.ts';
import type { AuthPortalAdapter } from '../types.ts';
import { ensureProgram } from '../pinned/provided-binary.ts';
import type { RootActions } from '../root/root-actions.ts';
import { installUnit } from '../systemd/unit-install.ts';
import { renderAutheliaUnit } from '../systemd/units.ts';

/**
 * The username comes last, after `--`: Authelia's CLI (cobra) then reads it as the argument whatever
 * it starts with (the spec's usernames may start with `-`: `--config` would otherwise be an option).
 */
export function totpGenerateArgs(username: string, secret: string, configPath: string): string[] {
  return ['storage', 'user', 'totp', 'generate', '--secret', secret, '--force', '--config', configPath, '--', assertUsername(username)];
}

/**
 * Authelia's unit as this configuration wants it: the installer writes it as root and the panel's
 * provisioning renders it again to compare (installUnit), so both call this.
 */
export function autheliaUnit(config: SystemConfig): string {
  return renderAutheliaUnit({
    binary: config.binaries.authelia,
    config: createPortalFiles(config, config.authelia.dir).configPath,
    dir: config.authelia.dir,
    user: serviceUser(config, 'auth-portal'),
  });
}

export function createHostAuthPortal(config: SystemConfig, root: RootActions): AuthPortalAdapter {
  const files = createPortalFiles(config, config.authelia.dir);
  return {
    async install({ domain, users }) {
      await ensureProgram({ name: 'authelia', ...config.authelia.release }, config.binaries.authelia, {
        timeoutMs: config.timeouts.downloadMs,
        archiveMember: config.authelia.archiveMember,
      });
      // the unit is enabled with --now: the users must be in the file before it
      await files.install(domain, users);
      // made before Authelia's first start, so that it finds files both users can write (its
      // storage: the panel's TOTP; its notifier's file: the panel's backups read it)
      await shareStorage(files.storagePath);
      await sharePortalFile(files.notifierPath);
      await installUnit(config, root, 'auth-portal', autheliaUnit(config));
    },
    readUsers: () => files.readUsers(),
    writeUsers: (users) => files.writeUsers(users),
    async setTotp(username, secret) {
      const args = totpGenerateArgs(username, portalTotpSecret(secret), files.configPath);
      // before: no link planted by Authelia's user is written through, and the CLI never makes the
      // file with its umask's mode; after: whatever the run did, both users can still write it
      await shareStorage(files.storagePath);
      await run(config.binaries.authelia, args, { timeoutMs: config.timeouts.defaultMs });
      await shareStorage(files.storagePath);
    },
    setAccessRules: (rules) => files.setAccessRules(rules),
    async restart() {
      await root.controlUnit('auth-portal', 'restart');
    },
  };
}
