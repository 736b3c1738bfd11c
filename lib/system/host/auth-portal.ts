// Host auth portal: pinned Authelia, its files, a systemd unit, TOTP through its storage CLI.
import { createPortalFiles, portalTotpSecret } from '../common/portal-files.ts';
import type { SystemConfig } from '../config.ts';
import { run } from '../exec.ts';
import { assertUsername } from '../names.ts';
import type { AuthPortalAdapter } from '../types.ts';
import { ensureProgram } from './provided-binary.ts';
import type { RootActions } from './root-actions.ts';
import { installUnit } from './unit-install.ts';
import { renderAutheliaUnit } from './units.ts';

export function totpGenerateArgs(username: string, secret: string, configPath: string): string[] {
  return ['storage', 'user', 'totp', 'generate', assertUsername(username), '--secret', secret, '--force', '--config', configPath];
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
      const unit = renderAutheliaUnit({ binary: config.binaries.authelia, config: files.configPath, dir: config.authelia.dir, user: config.systemd.runAs });
      await installUnit(config, root, 'auth-portal', unit);
    },
    readUsers: () => files.readUsers(),
    writeUsers: (users) => files.writeUsers(users),
    async setTotp(username, secret) {
      await run(config.binaries.authelia, totpGenerateArgs(username, portalTotpSecret(secret), files.configPath), {
        timeoutMs: config.timeouts.defaultMs,
      });
    },
    setAccessRules: (rules) => files.setAccessRules(rules),
    async restart() {
      await root.controlUnit('auth-portal', 'restart');
    },
  };
}
