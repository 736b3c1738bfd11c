// The configuration file of a panel on a free loopback port, onboarded or not yet (FRESH), for
// tests that start a server (lib/main.ts's start, or a bundle) on a directory of their own.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface OnboardedConfigOptions {
  /** 'config.json' unless given */
  file?: string;
  /** `<dir>/data` unless given */
  dataDir?: string;
  ip?: string;
  domain?: string;
  /** the configuration's `system` section, `{ driver: 'sandbox' }` for a panel that plays the host; the default's unless given */
  system?: Record<string, unknown>;
}

export type FreshConfigOptions = Omit<OnboardedConfigOptions, 'domain'>;

/** The configuration of an onboarded panel itself, for a test that reads it too (ConfigSchema). */
export function onboardedConfig(dir: string, o: OnboardedConfigOptions = {}) {
  return {
    ip: o.ip ?? '203.0.113.10', domain: o.domain ?? 'example.test', email: 'ops@example.test', dataDir: o.dataDir ?? join(dir, 'data'),
    onboarding: { status: 'COMPLETED' }, listen: { host: '127.0.0.1', port: 0 }, ...(o.system ? { system: o.system } : {}),
  };
}

/** Writes it in `dir`; its path. */
export async function writeOnboardedConfig(dir: string, o: OnboardedConfigOptions = {}): Promise<string> {
  return writeConfig(dir, o.file, onboardedConfig(dir, o));
}

/** A panel that has not been onboarded (FRESH: no domain, no email), in `dir`; its path. */
export async function writeFreshConfig(dir: string, o: FreshConfigOptions = {}): Promise<string> {
  return writeConfig(dir, o.file, { ...onboardedConfig(dir, o), domain: null, email: null, onboarding: { status: 'FRESH' } });
}

async function writeConfig(dir: string, file: string | undefined, config: object): Promise<string> {
  const path = join(dir, file ?? 'config.json');
  await writeFile(path, JSON.stringify(config));
  return path;
}
