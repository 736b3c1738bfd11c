// Crash-safe file replacement: unique temp file, fsync, rename, fsync the directory.
import { randomBytes } from 'node:crypto';
import { open, rename, unlink, mkdir } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';

export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', mode);
  try {
    await fh.writeFile(data);
    await fh.chmod(mode); // umask must not loosen a secret's mode
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
  await syncDir(dir);
}

export async function writeSecretFile(path: string, data: string | Uint8Array): Promise<void> {
  await writeFileAtomic(path, data, 0o600);
}

export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } catch {
    // some filesystems refuse fsync on directories; the rename is still atomic there
  } finally {
    await fh.close();
  }
}
