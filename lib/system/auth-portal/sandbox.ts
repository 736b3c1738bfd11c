// Sandbox auth portal: Authelia's files as the host writes them; TOTP secrets in a 0600 file,
// restarts recorded.
import { join } from 'node:path';
import { writeSecretFile } from '../common/atomic-write.ts';
import type { SystemConfig } from '../config.ts';
import { readOrNull } from '../common/fs.ts';
import { createPortalFiles, portalTotpSecret } from './portal-files.ts';
import { assertUsername } from '../common/names.ts';
import type { AuthPortalAdapter } from '../types.ts';
import type { SandboxControls } from '../sandbox/controls.ts';
import { sandboxPaths } from '../sandbox/paths.ts';

export function createSandboxAuthPortal(config: SystemConfig, dataDir: string, controls: SandboxControls): AuthPortalAdapter {
  const files = createPortalFiles(config, sandboxPaths(dataDir).authelia);
  const totpPath = join(files.dir, 'totp.json');
  // a missing file has no secrets yet; a corrupt one throws rather than being overwritten
  const totpSecrets = async (): Promise<Record<string, string>> => {
    const text = await readOrNull(totpPath);
    return text === null ? {} : (JSON.parse(text) as Record<string, string>);
  };
  // Each start plays Authelia's own check of the users database (assertSomeUser): without a user
  // it exits, and the unit is failed
  const start = async (): Promise<void> => {
    const users = await files.readUsers();
    controls.record('authPortal.start', { users: users.length });
    if (users.length === 0) {
      controls.setServiceStatus('auth-portal', 'failed');
      controls.appendLog('auth-portal', 'authelia: error reading the authentication database: could not validate the schema: users: non zero value required');
      return;
    }
    controls.setServiceStatus('auth-portal', 'active');
    controls.appendLog('auth-portal', `authelia: listening on 127.0.0.1:${config.ports.authPortal} (sandbox)`);
  };
  return {
    async install({ domain, users }) {
      await files.install(domain, users);
      controls.record('authPortal.install', { domain });
      await start();
    },
    readUsers: () => files.readUsers(),
    async writeUsers(users) {
      await files.writeUsers(users);
      controls.record('authPortal.writeUsers', { usernames: users.map((u) => u.username) });
    },
    async setTotp(username, secret) {
      assertUsername(username);
      const stripped = portalTotpSecret(secret);
      const all = await totpSecrets();
      all[username] = stripped;
      await writeSecretFile(totpPath, JSON.stringify(all, null, 2) + '\n');
      controls.record('authPortal.setTotp', { username });
    },
    async setAccessRules(rules) {
      await files.setAccessRules(rules);
      controls.record('authPortal.setAccessRules', { rules });
    },
    async restart() {
      controls.setServiceStatus('auth-portal', 'inactive');
      controls.record('authPortal.restart');
      await start();
    },
  };
}
