// Sandbox auth portal: Authelia's files as the host writes them; TOTP secrets in a 0600 file,
// restarts recorded.
import { join } from 'node:path';
import { writeSecretFile } from '../atomic-write.ts';
import type { SystemConfig } from '../config.ts';
import { readOrNull } from '../common/fs.ts';
import { createPortalFiles, portalTotpSecret } from '../common/portal-files.ts';
import { assertUsername } from '../names.ts';
import type { AuthPortalAdapter } from '../types.ts';
import type { SandboxControls } from './controls.ts';
import { sandboxPaths } from './paths.ts';

export function createSandboxAuthPortal(config: SystemConfig, dataDir: string, controls: SandboxControls): AuthPortalAdapter {
  const files = createPortalFiles(config, sandboxPaths(dataDir).authelia);
  const totpPath = join(files.dir, 'totp.json');
  // a missing file has no secrets yet; a corrupt one throws rather than being overwritten
  const totpSecrets = async (): Promise<Record<string, string>> => {
    const text = await readOrNull(totpPath);
    return text === null ? {} : (JSON.parse(text) as Record<string, string>);
  };
  return {
    async install({ domain }) {
      await files.install(domain);
      controls.setServiceStatus('auth-portal', 'active');
      controls.record('authPortal.install', { domain });
      controls.appendLog('auth-portal', `authelia: listening on 127.0.0.1:${config.ports.authPortal} (sandbox)`);
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
      controls.setServiceStatus('auth-portal', 'active');
      controls.record('authPortal.restart');
      controls.appendLog('auth-portal', 'authelia: restarted');
    },
  };
}
