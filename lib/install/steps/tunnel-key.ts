// The tunnel server's host key, made with the unit that names it (install and upgrade both render
// that unit). An existing key is kept: clients pinned its fingerprint.
import { chmod, stat } from 'node:fs/promises';
import { ensureHostKey, type HostKey } from '../../system/common/host-key.ts';
import type { SystemConfig } from '../../system/config.ts';
import { chownTree } from '../files.ts';

/**
 * The key is 0600 and owned like chisel's directory: the directories step gives that to the
 * panel's user, which chisel runs as; root making it here would leave chisel unable to read it.
 */
export async function tunnelHostKey(system: SystemConfig): Promise<HostKey> {
  const key = await ensureHostKey(system.chisel.dir);
  const owner = await stat(system.chisel.dir);
  await chownTree(key.path, { uid: owner.uid, gid: owner.gid });
  // a key put back by hand or from a copy keeps whatever mode it came with: it is a secret
  await chmod(key.path, 0o600);
  return key;
}
