// Doctor's look at the wildcard mode: the provider's certbot plugin installed, and its credentials
// file there for the renewals, 0600 and the panel's user's (certbot renews as that user). A restore
// leaves the file out (backups do not carry it), which this names with its fix.
import { lstat } from 'node:fs/promises';
import type { Config } from '../config.ts';
import { dnsCredentialsPath } from '../certs/dns01/credentials-file.ts';
import { PROVIDERS } from '../certs/dns01/providers.ts';

export interface Dns01Finding {
  ok: boolean;
  message: string;
  fix?: string;
}

export interface Dns01Probe {
  /** dpkg says the package is installed */
  installed(pkg: string): Promise<boolean>;
  /** the file's mode and owner, null when it is not a regular file */
  fileOf(path: string): Promise<{ mode: number; uid: number } | null>;
  panelUid: number;
}

export const statProbe = async (path: string) => {
  const st = await lstat(path).catch(() => null);
  return st?.isFile() ? { mode: st.mode & 0o777, uid: st.uid } : null;
};

export async function dns01Findings(config: Pick<Config, 'certificateMode' | 'dataDir'>, probe: Dns01Probe): Promise<Dns01Finding[]> {
  const mode = config.certificateMode;
  if (mode.mode !== 'wildcard') return [];
  const { package: pkg } = PROVIDERS[mode.provider];
  const path = dnsCredentialsPath(config.dataDir, mode.provider);
  const again = `enter the ${mode.provider} credentials again in Settings > Certificates (the same provider rewrites the file)`;
  const installed = await probe.installed(pkg);
  const file = await probe.fileOf(path);
  return [
    installed
      ? { ok: true, message: `${pkg} is installed: the wildcard certificate ${mode.lineage} renews through it` }
      : { ok: false, message: `${pkg} is not installed: the wildcard certificate ${mode.lineage} cannot renew`, fix: `apt-get install ${pkg}` },
    file === null
      ? { ok: false, message: `no ${mode.provider} credentials at ${path}: the wildcard certificate ${mode.lineage} cannot renew (backups leave them out)`, fix: again }
      : file.mode !== 0o600 || file.uid !== probe.panelUid
        ? { ok: false, message: `${path} is mode ${file.mode.toString(8)}, owner uid ${file.uid}: it must be 0600 and the panel's user's`, fix: again }
        : { ok: true, message: `${mode.provider} credentials for the wildcard certificate in ${path} (0600)` },
  ];
}
