// `uninstall --purge`: what install created goes, and only that (install-record.ts `created`): the
// panel's directories it made, the admin certificate, the programs it downloaded, the users it added
// and the packages it installed. A directory install found empty and took gets its contents removed
// and goes back to root. A box installed before the record: the panel's directories its user owns,
// its users, and the programs beside their `.release` markers. Nothing else of the box is touched:
// Debian's /etc/letsencrypt and the operator's own certificates stay as they are.
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

/** The users purge removes: the ones install made (before the record: the panel's and its services'). */
function purgedUsers(inst: Installation, created: Created | undefined): string[] {
  if (created) return created.users;
  const { tunnelUser, portalUser } = inst.system.systemd;
  return [inst.options.user, tunnelUser, portalUser].filter((u): u is string => !!u && u !== 'root');
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
  for (const dir of panelDirs(inst)) {
    const st = await lstat(dir.path).catch(() => null);
    if (!st) continue;
    const ours = created ? made.has(dir.path) : panel !== null && st.uid === panel.uid;
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
  const { chisel, authelia } = inst.system.binaries;
  const files = created
    ? [...made].filter((p) => !panelDirs(inst).some((d) => d.path === p))
    : [inst.layout.adminP12, ...[chisel, authelia].flatMap((b) => [b, `${b}.release`])];
  for (const file of files) {
    // before the record, a program is install's when its marker says so
    if (!created && !file.endsWith('.release') && file !== inst.layout.adminP12 && !(await entryExists(`${file}.release`))) continue;
    if (!(await entryExists(file))) continue;
    await rm(file, { recursive: true, force: true });
    removed.push(file);
  }
  return { removed, givenBack };
}

export async function purge(inst: Installation, created: Created | undefined): Promise<Outcome[]> {
  const names = purgedUsers(inst, created);
  const accounts = (await Promise.all(names.map(async (name) => ({ name, owner: await lookupUser(inst, name) }))))
    .filter((a): a is { name: string; owner: Owner } => a.owner !== null);
  await stopEverythingOf(inst, accounts.map((a) => ({ name: a.name, uid: a.owner.uid })));
  const panel = accounts.find((a) => a.name === inst.options.user)?.owner ?? null;
  const { removed, givenBack } = await removeFiles(inst, created, panel);
  const outcomes: Outcome[] = [{
    status: 'changed',
    message: `removed ${removed.join(', ') || 'nothing'}${givenBack.length ? `; emptied and gave back to root ${givenBack.join(', ')}` : ''}; nothing else (Debian's /etc/letsencrypt and anything of the operator's stay)`,
  }];
  const gone: string[] = [];
  for (const { name } of accounts) if ((await inst.run(inst.tools.userdel, [name], [6])).exitCode === 0) gone.push(name);
  outcomes.push({ status: gone.length ? 'changed' : 'done', message: gone.length ? `removed users ${gone.join(', ')}` : 'no user of the panel\'s to remove' });
  const packages = created?.packages ?? [];
  if (packages.length) {
    await inst.run(inst.tools.aptGet, ['purge', '-y', ...packages]);
    outcomes.push({ status: 'changed', message: `purged the packages install installed: ${packages.join(', ')}` });
  }
  return outcomes;
}
