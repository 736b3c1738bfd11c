// The install's choices (--ip, --no-harden, --no-packages, --no-downloads) and the last
// --keep-releases given, kept in a root-owned file of the app directory (uninstall removes it with
// the releases), so that `upgrade` does what the install did: an upgrade on a box installed with
// --no-downloads must not try to download, nor one after `--keep-releases 5` prune to 3.
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../system/atomic-write.ts';
import type { Installation } from './installation.ts';
import { KEEP_RELEASES, REMEMBERED, type CommandOptions, type RememberedChoice } from './options.ts';

export type InstallRecord = Partial<Pick<CommandOptions, RememberedChoice>>;

export async function readInstallRecord(file: string): Promise<InstallRecord> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return {};
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const record: InstallRecord = {};
  if (typeof parsed.ip === 'string') record.ip = parsed.ip;
  for (const key of ['harden', 'packages', 'downloads'] as const) if (typeof parsed[key] === 'boolean') record[key] = parsed[key];
  if (Number.isInteger(parsed.keepReleases) && (parsed.keepReleases as number) >= 2) record.keepReleases = parsed.keepReleases as number;
  return record;
}

/** The options with every choice not given on the command line taken from the record. */
export function withRecordedChoices(options: CommandOptions, record: InstallRecord): CommandOptions {
  const out = { ...options };
  for (const key of REMEMBERED) {
    if (options.given?.[key] || record[key] === undefined) continue;
    (out as Record<string, unknown>)[key] = record[key];
  }
  return out;
}

/** An address found on an interface is not recorded: a later run looks again; nor the default --keep-releases. */
export async function writeInstallRecord(inst: Installation): Promise<void> {
  const { ip, harden, packages, downloads, keepReleases } = inst.options;
  const keep = keepReleases !== undefined && keepReleases !== KEEP_RELEASES ? { keepReleases } : {};
  await writeRecord(inst.layout.installRecord, { ...(ip !== undefined ? { ip } : {}), harden, packages, downloads, ...keep });
}

/**
 * After a working upgrade given --keep-releases: the record keeps the install's choices (an
 * upgrade's --downloads counts for that upgrade only) and takes the new N.
 */
export async function recordKeepReleases(inst: Installation): Promise<void> {
  const { keepReleases, given } = inst.options;
  if (!given?.keepReleases || keepReleases === undefined) return;
  const { keepReleases: _, ...kept } = await readInstallRecord(inst.layout.installRecord);
  await writeRecord(inst.layout.installRecord, { ...kept, ...(keepReleases !== KEEP_RELEASES ? { keepReleases } : {}) });
}

function writeRecord(file: string, record: InstallRecord): Promise<void> {
  return writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`, 0o644);
}
