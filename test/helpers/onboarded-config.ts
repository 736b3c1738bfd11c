// The configuration file of an onboarded panel on a free loopback port, for tests that start a
// server (lib/main.ts's start, or a bundle) on a directory of their own.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface OnboardedConfigOptions {
  /** 'config.json' unless given */
  file?: string;
  /** `<dir>/data` unless given */
  dataDir?: string;
  ip?: string;
  domain?: string;
}

/** Writes it in `dir`; its path. */
export async function writeOnboardedConfig(dir: string, o: OnboardedConfigOptions = {}): Promise<string> {
  const file = join(dir, o.file ?? 'config.json');
  await writeFile(file, JSON.stringify({
    ip: o.ip ?? '203.0.113.10', domain: o.domain ?? 'example.test', email: 'ops@example.test', dataDir: o.dataDir ?? join(dir, 'data'),
    onboarding: { status: 'COMPLETED' }, listen: { host: '127.0.0.1', port: 0 },
  }));
  return file;
}
