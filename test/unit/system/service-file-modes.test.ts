// The modes of the files the panel writes for chisel and Authelia, which run as users of their own:
// what each service reads is open to its group (the directory's, setgid) and to no one else; what
// only the panel uses stays 0600; a file of an earlier release (0600) gets its new mode at its next
// write; Authelia's storage is 0660 whoever made it, and no link in its directory is written through.
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AUTHFILE_MODE, AuthfileStore } from '../../../lib/system/tunnel-server/authfile.ts';
import { ensureHostKey, HOST_KEY_MODE } from '../../../lib/system/tunnel-server/host-key.ts';
import { RefusedPathError } from '../../../lib/system/common/owned-file.ts';
import { createPortalFiles, PORTAL_READ_MODE } from '../../../lib/system/auth-portal/portal-files.ts';
import { PORTAL_STORAGE_MODE, shareStorage } from '../../../lib/system/auth-portal/portal-storage.ts';
import { systemConfig } from '../../../lib/system/config.ts';
import { SystemError } from '../../../lib/system/types.ts';
import { FIRST_PORTAL_USER } from '../../helpers/portal-user.ts';
import { timed } from '../../helpers/timeout.ts';

const s = suite('modes of the files chisel and Authelia read');
let dir = '';
const root = process.getuid?.() === 0;
/** A group the process may give a directory that is not its own primary group (the service's group). */
const serviceGroup: number | null = root ? 65534 : (process.getgroups?.() ?? []).find((g) => g !== process.getegid?.()) ?? null;

s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-service-modes-'));
});
s.after.each(async () => {
  await rm(dir, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o7777;
const modes = async (d: string, names: string[]) => Object.fromEntries(await Promise.all(names.map(async (n) => [n, (await modeOf(join(d, n))).toString(8)])));

/** The directory as the installer leaves it: the panel's, in the service's group, setgid (+ sticky for Authelia's). */
async function serviceDir(name: string, mode: number): Promise<string | null> {
  const d = join(dir, name);
  await mkdir(d);
  if (serviceGroup === null) return null;
  await chown(d, process.getuid!(), serviceGroup);
  await chmod(d, mode);
  return d;
}

s('chisel\'s directory: users.json and the host key 0640, the credential and the saved copy 0600', async () => {
  const chisel = join(dir, 'chisel');
  const store = new AuthfileStore(chisel);
  await store.credential();
  await store.setAllowedPorts([8001]);
  await ensureHostKey(chisel);
  assert.equal(await modes(chisel, ['users.json', 'host-key.pem', 'credential.json', 'users.json.saved']), {
    'users.json': '640',
    'host-key.pem': '640',
    'credential.json': '600',
    'users.json.saved': '600',
  });
  assert.is(AUTHFILE_MODE, 0o640);
  assert.is(HOST_KEY_MODE, 0o640);
});

s('an earlier release\'s 0600 users.json gets 0640 at its next write, in place (chisel keeps its watch), the umask\'s narrowing too', async () => {
  const chisel = join(dir, 'chisel');
  const store = new AuthfileStore(chisel);
  await store.setAllowedPorts([8001]);
  for (const old of [0o600, 0o644, 0o400]) {
    await chmod(store.authfile, old);
    const inode = (await stat(store.authfile)).ino;
    await store.setAllowedPorts(old === 0o600 ? [8001, 8002] : old === 0o644 ? [8003] : [8004]);
    assert.is(await modeOf(store.authfile), 0o640, old.toString(8));
    assert.is((await stat(store.authfile)).ino, inode, 'the same file, written in place');
  }
  assert.equal(await store.allowedPorts(), [8004]);
  // a repair from the saved copy (ensureAuthfile) leaves the same mode
  await chmod(store.authfile, 0o600);
  await writeFile(store.authfile, '{');
  await store.ensureAuthfile();
  assert.is(await modeOf(store.authfile), 0o640);
});

s('in chisel\'s setgid directory every file the panel makes takes chisel\'s group', async () => {
  const chisel = await serviceDir('chisel', 0o2750);
  if (chisel === null) return console.warn('no second group to give the directory: skipped');
  const store = new AuthfileStore(chisel);
  await store.setAllowedPorts([8001]);
  await ensureHostKey(chisel);
  for (const name of ['users.json', 'host-key.pem', 'credential.json', 'users.json.saved']) {
    assert.is((await stat(join(chisel, name))).gid, serviceGroup, name);
  }
  assert.is(await modeOf(chisel), 0o2750, 'the directory is left as it was');
});

s('Authelia\'s directory: configuration and users database 0640, secrets and the panel\'s own state 0600; an older 0600 file gets 0640 at its next write', async () => {
  const authelia = join(dir, 'authelia');
  const files = createPortalFiles(systemConfig({}), authelia);
  await files.install('example.com', [FIRST_PORTAL_USER]);
  assert.equal(await modes(authelia, ['configuration.yml', 'users_database.yml', 'secrets.json', 'relay-portal.json']), {
    'configuration.yml': '640',
    'users_database.yml': '640',
    'secrets.json': '600',
    'relay-portal.json': '600',
  });
  assert.is(PORTAL_READ_MODE, 0o640);
  await chmod(files.usersPath, 0o600);
  await chmod(files.configPath, 0o600);
  await files.writeUsers([FIRST_PORTAL_USER]); // the same users: written again all the same
  await files.setAccessRules([]);
  assert.equal(await modes(authelia, ['configuration.yml', 'users_database.yml']), { 'configuration.yml': '640', 'users_database.yml': '640' });
});

s('in Authelia\'s setgid + sticky directory the files take Authelia\'s group', async () => {
  const authelia = await serviceDir('authelia', 0o3770);
  if (authelia === null) return console.warn('no second group to give the directory: skipped');
  const files = createPortalFiles(systemConfig({}), authelia);
  await files.install('example.com', [FIRST_PORTAL_USER]);
  await shareStorage(files.storagePath);
  for (const name of ['configuration.yml', 'users_database.yml', 'secrets.json', 'db.sqlite3']) {
    assert.is((await stat(join(authelia, name))).gid, serviceGroup, name);
  }
});

s('Authelia\'s storage: made empty and 0660 when missing; the panel\'s own 0600 file of an earlier release gets 0660 and the directory\'s group', async () => {
  const authelia = join(dir, 'authelia');
  await mkdir(authelia);
  const db = join(authelia, 'db.sqlite3');
  await shareStorage(db);
  assert.equal([await modeOf(db), (await readFile(db)).length], [PORTAL_STORAGE_MODE, 0]);
  await writeFile(db, 'SQLite format 3\0');
  await chmod(db, 0o600);
  await shareStorage(db);
  assert.is(await modeOf(db), 0o660);
  assert.is(await readFile(db, 'utf8'), 'SQLite format 3\0', 'never truncated');
  const group = await serviceDir('shared', 0o3770);
  if (group === null) return console.warn('no second group to give the directory: skipped');
  const inGroup = join(group, 'db.sqlite3');
  await writeFile(inGroup, '', { mode: 0o600 });
  await chown(inGroup, process.getuid!(), process.getegid!());
  await shareStorage(inGroup);
  assert.equal([(await stat(inGroup)).gid, await modeOf(inGroup)], [serviceGroup, 0o660]);
});

s('Authelia\'s storage of another owner: fine when open to a group the panel holds, else an error that names the fix; never changed', async () => {
  const db = join(dir, 'db.sqlite3');
  await writeFile(db, '', { mode: 0o660 });
  await chmod(db, 0o660);
  // the file is this process's; the panel is played by another uid holding the file's group
  const panel = { uid: process.getuid!() + 1, groups: [(await stat(db)).gid] };
  await shareStorage(db, panel);
  for (const [mode, groups] of [[0o640, panel.groups], [0o600, panel.groups], [0o660, []]] as const) {
    await chmod(db, mode);
    try {
      await shareStorage(db, { uid: panel.uid, groups });
      assert.unreachable(`${mode.toString(8)} ${groups.join(',')}`);
    } catch (e) {
      assert.instance(e, SystemError);
      assert.match((e as Error).message, /not shared with Authelia's user and the panel's .*run relay-panel install again/);
    }
    assert.is(await modeOf(db), mode, 'another user\'s file is left alone');
  }
});

s('Authelia\'s storage: a link (to the panel\'s own state, say), a FIFO, or a link as SQLite\'s journal is refused, and nothing is written through it', timed(5000, async () => {
  const state = join(dir, 'state.json');
  await writeFile(state, '{"secret": true}', { mode: 0o600 });
  const authelia = join(dir, 'authelia');
  await mkdir(authelia);
  const db = join(authelia, 'db.sqlite3');
  const refused = async (path: string, reason: string) => {
    try {
      await shareStorage(db);
      assert.unreachable(`${path} was used`);
    } catch (e) {
      assert.instance(e, RefusedPathError);
      assert.equal([(e as RefusedPathError).path, (e as RefusedPathError).reason], [path, reason]);
    }
  };
  await symlink(state, db);
  await refused(db, 'a symbolic link');
  await rm(db);
  await symlink(join(dir, 'new-file'), db);
  await refused(db, 'a symbolic link');
  await rm(db);
  execFileSync('mkfifo', [db]);
  await refused(db, 'not a regular file');
  await rm(db);
  for (const side of ['-journal', '-wal', '-shm']) {
    await symlink(state, db + side);
    await refused(db + side, 'a symbolic link');
    await rm(db + side);
  }
  assert.equal([await readFile(state, 'utf8'), await modeOf(state)], ['{"secret": true}', 0o600]);
  assert.not.ok(await stat(join(dir, 'new-file')).catch(() => null), 'no file made through a dangling link');
}));

s.run();
