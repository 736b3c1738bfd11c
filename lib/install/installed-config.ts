// The installed panel's configuration, read without the store (which may write): commands only look.
import { readFile } from 'node:fs/promises';
import { ConfigSchema, type Config } from '../config.ts';
import { InstallError } from './host-checks.ts';
import type { Installation } from './installation.ts';

export async function readInstalledConfig(inst: Installation): Promise<Config> {
  const file = inst.layout.configFile;
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) throw new InstallError(`no installation: ${file} is missing`, 'run relay-panel install first');
  const parsed = ConfigSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new InstallError(`${file} is invalid: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`, `correct ${file}`);
  return parsed.data;
}
