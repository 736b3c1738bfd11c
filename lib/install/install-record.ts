// The install's choices (--ip, --no-harden, --no-packages, --no-downloads, --system-config) and the
// last --keep-releases given, kept in a root-owned file of the app directory, so that `upgrade`
// does what the install did: an upgrade on a box installed with --no-downloads must not try to
// download, nor one after `--keep-releases 5` prune to 3. Beside them, what install found and made
// (`created`): the paths, users and packages that were not there before it, and fail2ban's state
// before it hardened the box, so that uninstall puts back exactly that and --purge removes exactly
// that. Uninstall keeps the file until --purge, so an install after it still knows. `complete`
// says whether that list is all install made: a box an earlier release installed (before the
// list) gets a list of what later installs and upgrades add, which purge must not take for all.
import { lstat, readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../system/common/atomic-write.ts';
import type { Installation } from './installation.ts';
import { KEEP_RELEASES, REMEMBERED, type CommandOptions, type RememberedChoice } from './options.ts';

/** What was not on the box before install made it, and fail2ban as install found it. */
export interface Created {
  /**
   * true: the list began on a fresh box (no panel configuration directory yet), so it holds all
   * install made; false or absent (a record from before this field): it began on a box an earlier
   * release had installed, and purge adds its rules for such a box (purge.ts).
   */
  complete: boolean;
  paths: string[];
  users: string[];
  packages: string[];
  fail2ban?: { enabled: boolean; active: boolean };
}

export type InstallRecord = Partial<Pick<CommandOptions, RememberedChoice>> & { created?: Created };

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function readCreated(v: unknown): Created | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const f = o.fail2ban as Record<string, unknown> | undefined;
  const fail2ban = f && typeof f.enabled === 'boolean' && typeof f.active === 'boolean' ? { enabled: f.enabled, active: f.active } : undefined;
  return { complete: o.complete === true, paths: strings(o.paths), users: strings(o.users), packages: strings(o.packages), ...(fail2ban ? { fail2ban } : {}) };
}

export async function readInstallRecord(file: string): Promise<InstallRecord> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return {};
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const record: InstallRecord = {};
  if (typeof parsed.ip === 'string') record.ip = parsed.ip;
  for (const key of ['harden', 'packages', 'downloads'] as const) if (typeof parsed[key] === 'boolean') record[key] = parsed[key];
  if (Number.isInteger(parsed.keepReleases) && (parsed.keepReleases as number) >= 2) record.keepReleases = parsed.keepReleases as number;
  if (parsed.system && typeof parsed.system === 'object' && !Array.isArray(parsed.system)) record.system = parsed.system as CommandOptions['system'];
  const created = readCreated(parsed.created);
  if (created) record.created = created;
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
  const { ip, harden, packages, downloads, keepReleases, system } = inst.options;
  const keep = keepReleases !== undefined && keepReleases !== KEEP_RELEASES ? { keepReleases } : {};
  const overlay = Object.keys(system).length ? { system } : {};
  const { created } = await readInstallRecord(inst.layout.installRecord);
  await writeRecord(inst.layout.installRecord, { ...(ip !== undefined ? { ip } : {}), harden, packages, downloads, ...keep, ...overlay, ...(created ? { created } : {}) });
}

/**
 * Whether the list that starts now can hold all install made: the box is fresh when the panel's
 * configuration directory is not there yet (install's packages and user steps run before its
 * directories step), or is what install notes as made right now (its directories step notes it
 * just after making it, on a box where the users and packages were there already).
 */
async function startsOnFreshBox(inst: Installation, made: Partial<Created>): Promise<boolean> {
  const configDir = inst.layout.configDir;
  if (made.paths?.includes(configDir)) return true;
  return !(await lstat(configDir).then(() => true, () => false));
}

/** Adds to what install made (as soon as it made it: an install that fails later still leaves it known). */
export async function noteCreated(inst: Installation, made: Partial<Omit<Created, 'fail2ban' | 'complete'>> & Pick<Partial<Created>, 'fail2ban'>): Promise<void> {
  const record = await readInstallRecord(inst.layout.installRecord);
  const was = record.created ?? { complete: await startsOnFreshBox(inst, made), paths: [], users: [], packages: [] };
  const union = (a: string[], b: string[] = []) => [...new Set([...a, ...b])];
  const created: Created = {
    complete: was.complete,
    paths: union(was.paths, made.paths),
    users: union(was.users, made.users),
    packages: union(was.packages, made.packages),
    // the state before the first install that hardened: later ones find their own work
    ...(was.fail2ban ?? made.fail2ban ? { fail2ban: was.fail2ban ?? made.fail2ban } : {}),
  };
  await writeRecord(inst.layout.installRecord, { ...record, created });
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

export function writeRecord(file: string, record: InstallRecord): Promise<void> {
  return writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`, 0o644);
}
