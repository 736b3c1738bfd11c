// The system adapters' call shape for the panel's one crash-safe writer (lib/state/atomic-write.ts):
// parent directories are created, and the mode is a plain argument.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic as replaceFile } from '../../state/atomic-write.ts';

export { writeFilesAtomic } from '../../state/atomic-write.ts';

/** `sync: false`: a cache, whose loss only costs work, is not waited on to reach the disk. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644, { sync = true } = {}): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await replaceFile(path, data, { mode, sync });
}

export function writeSecretFile(path: string, data: string | Uint8Array): Promise<void> {
  return writeFileAtomic(path, data, 0o600);
}
