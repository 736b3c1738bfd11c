// Provisioning's way to a pinned program (chisel, Authelia). The installer downloads them as root
// at install time, or the operator puts them in place after `install --no-downloads`; either way an
// executable at the configured path is used as it is. Only a missing one is downloaded here: the
// installed panel cannot write /usr/local/bin (its unit's ProtectSystem=strict), so a download in
// provisioning works only for a panel run as root outside the installer.
import { access, constants, stat } from 'node:fs/promises';
import { installPinned, type PinnedRelease } from './install.ts';

async function isExecutableFile(path: string): Promise<boolean> {
  const st = await stat(path).catch(() => null);
  if (!st?.isFile() || st.size === 0) return false;
  return access(path, constants.X_OK).then(() => true, () => false);
}

/** Returns whether anything was written. */
export async function ensureProgram(release: PinnedRelease, target: string, opts: { timeoutMs: number; archiveMember?: string }): Promise<boolean> {
  if (await isExecutableFile(target)) return false;
  return installPinned(release, target, opts);
}
