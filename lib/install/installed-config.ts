// The installed panel's configuration, read without the store (which may write): commands only look.
// The file is the panel's user's, so root reads it as it reads anything that user could write
// (owned-file.ts): no link, no FIFO, that user's or root's, and bounded.
import { ConfigSchema, type Config } from '../config.ts';
import { readOwnedText } from '../system/common/owned-file.ts';
import { InstallError } from './host-checks.ts';
import type { Installation } from './installation.ts';
import { panelOwner } from './users.ts';

const MAX_CONFIG_BYTES = 1024 * 1024;

/** The file as it is, for an upgrade to put back; null when there is none. */
export async function readInstalledConfigText(inst: Installation): Promise<string | null> {
  const owner = await panelOwner(inst);
  try {
    return await readOwnedText(inst.layout.configFile, { owners: [owner.uid, 0], maxBytes: MAX_CONFIG_BYTES });
  } catch (e) {
    throw new InstallError((e as Error).message, `put the panel's configuration back (${inst.layout.configFile}, owned by ${inst.options.user}), then run the command again`);
  }
}

export async function readInstalledConfig(inst: Installation): Promise<Config> {
  const file = inst.layout.configFile;
  const text = await readInstalledConfigText(inst);
  if (text === null) throw new InstallError(`no installation: ${file} is missing`, 'run relay-panel install first');
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (e) {
    throw new InstallError(`${file} is not JSON: ${(e as Error).message}`, `correct ${file}`);
  }
  const parsed = ConfigSchema.safeParse(document);
  if (!parsed.success) throw new InstallError(`${file} is invalid: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`, `correct ${file}`);
  return parsed.data;
}
