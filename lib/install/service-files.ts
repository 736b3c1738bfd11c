// The files chisel and Authelia read or share, given to them and to no one else. The panel writes
// them with these modes (lib/system/common), in directories whose group is the service's; this puts
// right the files of a box where an earlier release ran both services as the panel's user. Each is
// named (no tree walk), opened without following a link, and changed only when the panel owns it.
import { join } from 'node:path';
import { serviceUser } from '../system/config.ts';
import { AUTHFILE_MODE } from '../system/tunnel-server/authfile.ts';
import { HOST_KEY_MODE, hostKeyPath } from '../system/tunnel-server/host-key.ts';
import { PORTAL_READ_MODE } from '../system/auth-portal/portal-files.ts';
import { settleOwnedFile, type Owner } from './files.ts';
import type { Installation } from './installation.ts';
import { lookupGroup } from './users.ts';

const SECRET = 0o600;
const SHARED = 0o660;

export async function settleServiceFiles(inst: Installation, owner: Owner): Promise<string[]> {
  const s = inst.system;
  const groupOf = async (service: 'tunnel-server' | 'auth-portal') => {
    const account = serviceUser(s, service);
    return account && account !== inst.options.user ? (await lookupGroup(inst, account))?.gid ?? owner.gid : owner.gid;
  };
  const chisel = { uid: owner.uid, gid: await groupOf('tunnel-server') };
  const portal = { uid: owner.uid, gid: await groupOf('auth-portal') };
  const files: Array<[string, Owner, number]> = [
    [join(s.chisel.dir, 'users.json'), chisel, AUTHFILE_MODE],
    [hostKeyPath(s.chisel.dir), chisel, HOST_KEY_MODE],
    [join(s.chisel.dir, 'credential.json'), chisel, SECRET],
    [join(s.chisel.dir, 'users.json.saved'), chisel, SECRET],
    [join(s.authelia.dir, 'configuration.yml'), portal, PORTAL_READ_MODE],
    [join(s.authelia.dir, 'users_database.yml'), portal, PORTAL_READ_MODE],
    [join(s.authelia.dir, 'secrets.json'), portal, SECRET],
    [join(s.authelia.dir, 'relay-portal.json'), portal, SECRET],
    [join(s.authelia.dir, 'db.sqlite3'), portal, SHARED],
    [join(s.authelia.dir, 'db.sqlite3-journal'), portal, SHARED],
    [join(s.authelia.dir, 'notification.txt'), portal, SHARED],
  ];
  const changed: string[] = [];
  for (const [path, to, mode] of files) if (await settleOwnedFile(path, { owners: [owner.uid], owner: to, mode })) changed.push(path);
  return changed;
}
