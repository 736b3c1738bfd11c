// Sandbox auth portal: Authelia's files as the host writes them; TOTP secrets in a 0600 file,
// restarts recorded.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeSecretFile } from '../atomic-write.ts';
import type { SystemConfig } from '../config.ts';
import { PortalFiles } from '../common/portal-files.ts';
import { assertUsername } from '../names.ts';
import { SystemError, type AuthPortalAdapter } from '../types.ts';
import type { SandboxControls } from './controls.ts';
import { sandboxPaths } from './paths.ts';

export function createSandboxAuthPortal(config: SystemConfig, dataDir: string, controls: SandboxControls): AuthPortalAdapter & {
  files: PortalFiles;
  totpSecrets(): Promise<Record<string, string>>;
} {
  const files = new PortalFiles(sandboxPaths(dataDir).authelia, {
    httpsPort: config.ports.https,
    listenPort: config.ports.authPortal,
    adminGroup: config.authelia.adminGroup,
  });
  const totpPath = join(files.dir, 'totp.json');
  const totpSecrets = async (): Promise<Record<string, string>> => {
    try {
      return JSON.parse(await readFile(totpPath, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  };
  return {
    files,
    totpSecrets,
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
      if (!/^[A-Z2-7]+=*$/.test(secret)) throw new SystemError('TOTP secret must be base32');
      const all = await totpSecrets();
      all[username] = secret;
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
