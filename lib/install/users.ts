// The system users of an installation, looked up through getent (passwd(5) fields).
import type { Owner } from './files.ts';
import { InstallError } from './host-checks.ts';
import type { Installation } from './installation.ts';

export async function lookupUser(inst: Installation, name: string): Promise<Owner | null> {
  const r = await inst.run(inst.tools.getent, ['passwd', name], [2]);
  const fields = r.exitCode === 0 ? r.stdout.trim().split(':') : [];
  return fields.length >= 4 ? { uid: Number(fields[2]), gid: Number(fields[3]) } : null;
}

/** The panel's user and group; root for a panel that runs as root. */
export async function panelOwner(inst: Installation): Promise<Owner> {
  if (inst.options.user === 'root') return { uid: 0, gid: 0 };
  const owner = await lookupUser(inst, inst.options.user);
  if (!owner) throw new InstallError(`there is no user ${inst.options.user}`, 'relay-panel install creates it');
  return owner;
}

/** A uid that no user has: what files of a user deleted by an earlier uninstall still carry. */
export async function uidIsFree(inst: Installation, uid: number): Promise<boolean> {
  return (await inst.run(inst.tools.getent, ['passwd', String(uid)], [2])).exitCode === 2;
}

/** A group's id, or null when there is no such group. */
export async function lookupGroup(inst: Installation, name: string): Promise<{ gid: number; members: string[] } | null> {
  const r = await inst.run(inst.tools.getent, ['group', name], [2]);
  const fields = r.exitCode === 0 ? r.stdout.trim().split(':') : [];
  return fields.length >= 3 ? { gid: Number(fields[2]), members: (fields[3] ?? '').split(',').filter(Boolean) } : null;
}
