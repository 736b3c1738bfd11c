import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeSecretFile } from '../system/common/atomic-write.ts';
import { LABEL_PATTERN } from './schema.ts';

/**
 * PKCS#12 bundles kept for download, mode 0600 under `<dataDir>/certs/`: one per P12-issued agent
 * (`agents/<label>.p12`) and the admin's rotated bundle (`admin.p12`).
 */
export class BundleFiles {
  constructor(private readonly dir: string) {}

  agentPath(label: string): string {
    // labels are validated at the edge too; this keeps a bad one from ever leaving the folder
    if (!LABEL_PATTERN.test(label)) throw new Error(`Invalid agent label '${label}'`);
    return join(this.dir, 'agents', `${label}.p12`);
  }

  get adminPath(): string {
    return join(this.dir, 'admin.p12');
  }

  async write(path: string, data: Buffer): Promise<void> {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeSecretFile(path, data);
  }

  /** The bundle, or null when there is none. */
  async read(path: string): Promise<Buffer<ArrayBuffer> | null> {
    try {
      return await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  remove(path: string): Promise<void> {
    return rm(path, { force: true });
  }
}
