// Where a DNS provider's credentials live and how they are put there: one file in a directory of
// the data dir that only the panel's user reads (certbot runs as that user, at issuance and from the
// renewal timer), written whole through a temp file and a rename, mode 0600. Backups leave the
// directory out (lib/backup/create-archive.ts): a stolen archive must not hold a key that edits
// the zone; after a restore the admin enters the credentials again.
import { chmod, mkdir, rm } from 'node:fs/promises';
import { writeSecretFile } from '../../system/common/atomic-write.ts';
import { readOrNull } from '../../system/common/fs.ts';

// the place is the system layer's, which names route53's file in certbot's environment too
export { dnsCredentialsDir, dnsCredentialsPath } from '../../system/certs/dns-credentials-path.ts';

/**
 * Writes the file and answers how to take it back: the earlier text put back, or the file removed
 * when there was none. A failed write leaves no file behind (the temp file is never the target).
 */
export async function putCredentialsFile(path: string, dir: string, text: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const before = await readOrNull(path);
  await writeSecretFile(path, text);
  return async () => {
    if (before === null) await rm(path, { force: true });
    else await writeSecretFile(path, before);
  };
}
