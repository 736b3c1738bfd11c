// `uninstall --purge`: what install created goes, and only that (install-record.ts `created`): the
// panel's directories it made, the admin certificate, the programs it downloaded, the users it added
// and the packages it installed. A directory install found empty and took gets its contents removed
// and goes back to root. When that list is not complete (a box an earlier release installed, before
// the list or before it began on a fresh box), the rules for such a box are added to it: the panel's
// directories its user owns, the admin certificate, the programs beside their `.release` markers,
// the panel's user and its services' users. Packages go only when apt would remove nothing else with
// them. Nothing else of the box is touched: Debian's /etc/letsencrypt and the operator's own
// certificates stay as they are.
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { entryExists } from '../system/common/fs.ts';
import { ensureDir, type Owner } from './files.ts';
import type { Created } from './install-record.ts';
import type { Installation } from './installation.ts';
import { panelDirs } from './panel-dirs.ts';
import type { Outcome } from './steps/step.ts';
import { lookupUser } from './users.ts';

const CRONTAB = '/usr/bin/crontab';

const union = (...lists: string[][]) => [...new Set(lists.flat())];

/** Whether the record's list is all install made; a record without the list or with an older one is not. */
const complete = (created: Created | undefined): created is Created & { complete: true } => created?.complete === true;

/** The users purge removes: the ones install made (a list that is not complete: and the panel's and its services'). */
function purgedUsers(inst: Installation, created: Created | undefined): string[] {
  if (complete(created)) return created.users;
  const { tunnelUser, portalUser } = inst.system.systemd;
  const legacy = [inst.options.user, tunnelUser, portalUser].filter((u): u is string => !!u && u !== 'root');
  return union(created?.users ?? [], legacy);
}

/** chisel and Authelia where install downloads them, when their `.release` marker (install's) is beside them. */
async function programsBesideMarkers(inst: Installation): Promise<string[]> {
  const { chisel, authelia } = inst.system.binaries;
  const out: string[] = [];
  for (const program of [chisel, authelia]) if (await entryExists(`${program}.release`)) out.push(program, `${program}.release`);
  return out;
}

/**
 * No process of theirs may run while root deletes their directories (it could swap an entry for a
 * link under root's feet): their crontabs go, then whatever still runs as them is killed. Their
 * units were stopped already.
 */
async function stopEverythingOf(inst: Installation, owners: Array<{ name: string; uid: number }>): Promise<void> {
  for (const { name, uid } of owners) {
    if (await entryExists(CRONTAB)) await inst.run(CRONTAB, ['-r', '-u', name], [1]).catch(() => null);
    await inst.run(inst.tools.pkill, ['--signal', 'KILL', '--uid', String(uid)], [1]).catch(() => null);
  }
}

async function removeFiles(inst: Installation, created: Created | undefined, panel: Owner | null): Promise<{ removed: string[]; givenBack: string[] }> {
  const removed: string[] = [];
  const givenBack: string[] = [];
  const made = new Set(created?.paths ?? []);
  const legacy = !complete(created);
  const dirs = panelDirs(inst).map((d) => d.path);
  // what the rules for an older box name, looked at before anything goes
  const legacyFiles = legacy ? [inst.layout.adminP12, ...(await programsBesideMarkers(inst))] : [];
  for (const dir of panelDirs(inst)) {
    const st = await lstat(dir.path).catch(() => null);
    if (!st) continue;
    const ours = made.has(dir.path) || (legacy && panel !== null && st.uid === panel.uid);
    if (ours) {
      await rm(dir.path, { recursive: true, force: true });
      removed.push(dir.path);
    } else if (panel !== null && st.uid === panel.uid && st.isDirectory()) {
      // found empty and taken by install: emptied and root's again
      for (const name of await readdir(dir.path)) await rm(join(dir.path, name), { recursive: true, force: true });
      await ensureDir(dir.path, 0o755, { uid: 0, gid: 0 });
      givenBack.push(dir.path);
    }
  }
  const files = union([...made].filter((p) => !dirs.includes(p)), legacyFiles);
  for (const file of files) {
    if (!(await entryExists(file))) continue;
    await rm(file, { recursive: true, force: true });
    removed.push(file);
  }
  return { removed, givenBack };
}

/** Names apt's simulation says would go: its `Purg <name> …` and `Remv <name> …` lines, without an architecture. */
export function simulatedRemovals(stdout: string): string[] {
  const names: string[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(?:Purg|Remv) (\S+)/.exec(line);
    if (m) names.push(bare(m[1]!));
  }
  return [...new Set(names)];
}

const bare = (name: string) => name.replace(/:.*$/, '');

/**
 * Whether to purge install's packages: only when apt would remove nothing else with them (purging
 * openssl takes ca-certificates and more; nginx takes the operator's modules).
 */
export function packagesDecision(installed: readonly string[], wouldGo: readonly string[]): { purge: boolean; going: string[]; others: string[] } {
  const ours = new Set(installed.map(bare));
  const others = wouldGo.filter((name) => !ours.has(name));
  const going = wouldGo.filter((name) => ours.has(name));
  return { purge: others.length === 0 && going.length > 0, going, others };
}

async function purgePackages(inst: Installation, packages: string[]): Promise<Outcome> {
  const list = packages.join(' ');
  const fix = `if nothing else of yours needs them: apt-get purge ${list} (apt-get -s purge ${list} shows what it would take)`;
  const simulation = await inst.run(inst.tools.aptGet, ['-s', 'purge', ...packages], [100]).catch((err: Error) => ({ stdout: '', stderr: err.message, exitCode: -1 }));
  if (simulation.exitCode !== 0) {
    const why = simulation.stderr.trim().split('\n').filter(Boolean).pop() ?? `exit status ${simulation.exitCode}`;
    return { status: 'warning', message: `kept the packages install installed (${packages.join(', ')}): apt-get -s purge could not say what their removal would take (${why})`, fix };
  }
  const decision = packagesDecision(packages, simulatedRemovals(simulation.stdout));
  if (decision.others.length) {
    return {
      status: 'warning',
      message: `kept the packages install installed (${packages.join(', ')}): purging them would also remove ${decision.others.join(', ')}, which install did not install`,
      fix,
    };
  }
  if (!decision.purge) return { status: 'done', message: `the packages install installed (${packages.join(', ')}) are no longer installed: nothing to purge` };
  await inst.run(inst.tools.aptGet, ['purge', '-y', ...packages]);
  return { status: 'changed', message: `purged the packages install installed: ${decision.going.join(', ')}` };
}

export async function purge(inst: Installation, created: Created | undefined): Promise<Outcome[]> {
  const names = purgedUsers(inst, created);
  const accounts = (await Promise.all(names.map(async (name) => ({ name, owner: await lookupUser(inst, name) }))))
    .filter((a): a is { name: string; owner: Owner } => a.owner !== null);
  await stopEverythingOf(inst, accounts.map((a) => ({ name: a.name, uid: a.owner.uid })));
  const panel = accounts.find((a) => a.name === inst.options.user)?.owner ?? null;
  const { removed, givenBack } = await removeFiles(inst, created, panel);
  const older = complete(created)
    ? ''
    : ` (an earlier release installed this box and its record does not list all it made: the panel's directories ${inst.options.user} owns, ${inst.layout.adminP12} and the programs beside their .release markers went with what it lists)`;
  const outcomes: Outcome[] = [{
    status: 'changed',
    message: `removed ${removed.join(', ') || 'nothing'}${givenBack.length ? `; emptied and gave back to root ${givenBack.join(', ')}` : ''}${older}; nothing else (Debian's /etc/letsencrypt and anything of the operator's stay)`,
  }];
  const gone: string[] = [];
  for (const { name } of accounts) if ((await inst.run(inst.tools.userdel, [name], [6])).exitCode === 0) gone.push(name);
  outcomes.push({ status: gone.length ? 'changed' : 'done', message: gone.length ? `removed users ${gone.join(', ')}` : 'no user of the panel\'s to remove' });
  const packages = created?.packages ?? [];
  if (packages.length) outcomes.push(await purgePackages(inst, packages));
  return outcomes;
}
