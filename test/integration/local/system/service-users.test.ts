// chisel's and Authelia's directories as the installer lays them out, used by real, separate users
// (setpriv, as root only): the panel writes its files as its own user; chisel's user reads only
// its authfile and host key; Authelia's user reads its configuration and users, writes its storage
// and its notifier's file, and can neither read the panel's secrets nor replace the panel's files;
// the panel (a member of Authelia's group) runs TOTP on the storage Authelia writes.
import { spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FIRST_PORTAL_USER } from '../../../helpers/portal-user.ts';
import { refuseCheckoutPaths, stageBundle, stageFile } from '../../../helpers/staged-for-others.ts';
import { timed } from '../../../helpers/timeout.ts';

interface User {
  uid: number;
  gid: number;
  groups: number[];
  umask: string;
}
// numbers no account of this machine uses; each user's group has its number
const PANEL: User = { uid: 64_101, gid: 64_101, groups: [64_101, 64_102], umask: '077' }; // its unit's UMask, and Authelia's group
const AUTHELIA: User = { uid: 64_102, gid: 64_102, groups: [64_102], umask: '007' };
const CHISEL: User = { uid: 64_103, gid: 64_103, groups: [64_103], umask: '077' };

const LIB = new URL('../../../../lib/', import.meta.url).pathname;
const FAKE_AUTHELIA_SOURCE = new URL('../../../fakes/bin/authelia', import.meta.url).pathname;
const usable = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;

const s = suite('chisel and Authelia as users of their own');
let base = '';
let chiselDir = '';
let autheliaDir = '';
/** what the other users run, staged out of the checkout (see staged-for-others.ts) */
let code = '';
const staged = { panelWrites: '', panelTotp: '', fakeAuthelia: '' };

s.before(async () => {
  if (!usable) return;
  code = await mkdtemp('/tmp/relay-service-users-code-');
  await chmod(code, 0o755);
  staged.panelWrites = await stageBundle(PANEL_WRITES, LIB, code, 'panel-writes');
  staged.panelTotp = await stageBundle(PANEL_TOTP, LIB, code, 'panel-totp');
  staged.fakeAuthelia = await stageFile(FAKE_AUTHELIA_SOURCE, code);
});
s.after(async () => {
  if (code) await rm(code, { recursive: true, force: true });
});

s.before.each(async () => {
  if (!usable) return;
  // under /tmp, not the runner's private TMPDIR (0700, root's): the other users must reach it
  base = await mkdtemp('/tmp/relay-service-users-');
  await chmod(base, 0o755);
  chiselDir = join(base, 'chisel');
  autheliaDir = join(base, 'authelia');
  await mkdir(chiselDir);
  await chown(chiselDir, PANEL.uid, CHISEL.gid);
  await chmod(chiselDir, 0o2750);
  await mkdir(autheliaDir);
  await chown(autheliaDir, PANEL.uid, AUTHELIA.gid);
  await chmod(autheliaDir, 0o3770);
});
s.after.each(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

function as(user: User, argv: string[]): { ok: boolean; out: string } {
  refuseCheckoutPaths(argv);
  const groups = `--groups=${user.groups.join(',')}`;
  const r = spawnSync('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, groups, '/bin/sh', '-c', `umask ${user.umask}; exec "$@"`, 'sh', ...argv], {
    cwd: base,
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

/** Runs a staged script in a node process of `user`, with `args` as JSON in its argv. */
function nodeAs(user: User, script: string, args: unknown): { ok: boolean; out: string } {
  return as(user, [process.execPath, script, JSON.stringify(args)]);
}

// the panel's side, as scripts importing lib/ (bundled by stageBundle); args: JSON in argv[2]
const PANEL_WRITES = `
import { AuthfileStore } from './system/tunnel-server/authfile.ts';
import { ensureHostKey } from './system/tunnel-server/host-key.ts';
import { createPortalFiles } from './system/auth-portal/portal-files.ts';
import { shareStorage, sharePortalFile } from './system/auth-portal/portal-storage.ts';
import { systemConfig } from './system/config.ts';
const args = JSON.parse(process.argv[2]);
const store = new AuthfileStore(args.chisel);
await store.setAllowedPorts([8001]);
await ensureHostKey(args.chisel);
const files = createPortalFiles(systemConfig({}), args.authelia);
await files.install('example.com', [args.user]);
await shareStorage(files.storagePath);
await sharePortalFile(files.notifierPath);
`;

const PANEL_TOTP = `
import { createHostAuthPortal } from './system/auth-portal/host.ts';
import { systemConfig } from './system/config.ts';
const args = JSON.parse(process.argv[2]);
const config = systemConfig({ driver: 'host', binaries: { authelia: args.fake }, authelia: { dir: args.authelia } });
try {
  await createHostAuthPortal(config, {}).setTotp('alice', 'JBSWY3DPEHPK3PXP');
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
`;

const cannot = (r: { ok: boolean; out: string }, what: string) => assert.not.ok(r.ok, `${what}: ${r.out}`);
const can = (r: { ok: boolean; out: string }, what: string) => assert.ok(r.ok, `${what}: ${r.out}`);
const modeOf = async (path: string) => (await stat(path)).mode & 0o7777;

s('chisel\'s user reads its authfile and host key, nothing else of the panel\'s, and writes nothing there', timed(30_000, async () => {
  if (!usable) return console.warn('needs root and setpriv: skipped');
  can(nodeAs(PANEL, staged.panelWrites, { chisel: chiselDir, authelia: autheliaDir, user: FIRST_PORTAL_USER }), 'the panel writes its files');
  for (const name of ['users.json', 'host-key.pem']) can(as(CHISEL, ['cat', join(chiselDir, name)]), name);
  for (const name of ['credential.json', 'users.json.saved']) cannot(as(CHISEL, ['cat', join(chiselDir, name)]), name);
  cannot(as(CHISEL, ['touch', join(chiselDir, 'planted')]), 'a new file in its directory');
  cannot(as(CHISEL, ['sh', '-c', `: >> ${join(chiselDir, 'users.json')}`]), 'a write to its authfile');
}));

s('Authelia\'s user reads its configuration, writes its storage and notifier, cannot read the secrets or replace the panel\'s files; the panel runs TOTP on the same storage', timed(60_000, async () => {
  if (!usable) return console.warn('needs root and setpriv: skipped');
  can(nodeAs(PANEL, staged.panelWrites, { chisel: chiselDir, authelia: autheliaDir, user: FIRST_PORTAL_USER }), 'the panel writes its files');
  const path = (name: string) => join(autheliaDir, name);
  for (const name of ['configuration.yml', 'users_database.yml']) can(as(AUTHELIA, ['cat', path(name)]), name);
  for (const name of ['secrets.json', 'relay-portal.json']) cannot(as(AUTHELIA, ['cat', path(name)]), name);
  for (const name of ['configuration.yml', 'users_database.yml', 'secrets.json']) {
    cannot(as(AUTHELIA, ['rm', '-f', path(name)]), `removing ${name}`);
    cannot(as(AUTHELIA, ['mv', path(name), path(`${name}.moved`)]), `moving ${name}`);
    cannot(as(AUTHELIA, ['sh', '-c', `: >> ${path(name)}`]), `writing ${name}`);
  }
  // its notifier's start-up write, then its storage written by a TOTP run of its own (with a journal)
  can(as(AUTHELIA, ['sh', '-c', `: > ${path('notification.txt')}`]), 'the notifier');
  const totp = (user: string) => [staged.fakeAuthelia, 'storage', 'user', 'totp', 'generate', user, '--secret', 'JBSWY3DPEHPK3PXP', '--force', '--config', path('configuration.yml')];
  can(as(AUTHELIA, totp('bob')), 'Authelia writes the storage the panel made');
  // the panel, a member of Authelia's group, through its own code path
  can(nodeAs(PANEL, staged.panelTotp, { fake: staged.fakeAuthelia, authelia: autheliaDir }), 'the panel\'s setTotp');
  can(as(AUTHELIA, totp('carol')), 'Authelia writes the storage after the panel\'s run');
  assert.equal([await modeOf(path('db.sqlite3')), await modeOf(path('notification.txt'))], [0o660, 0o660]);
  assert.equal((await stat(path('db.sqlite3'))).gid, AUTHELIA.gid);
}));

s('a storage Authelia made itself (0640 under its UMask) is an error that names the fix, not SQLite\'s read-only database', timed(30_000, async () => {
  if (!usable) return console.warn('needs root and setpriv: skipped');
  can(nodeAs(PANEL, staged.panelWrites, { chisel: chiselDir, authelia: autheliaDir, user: FIRST_PORTAL_USER }), 'the panel writes its files');
  const db = join(autheliaDir, 'db.sqlite3');
  await rm(db);
  can(as(AUTHELIA, [staged.fakeAuthelia, 'storage', 'user', 'totp', 'generate', 'bob', '--secret', 'JBSWY3DPEHPK3PXP', '--force', '--config', join(autheliaDir, 'configuration.yml')]), 'Authelia makes it');
  assert.equal([(await stat(db)).uid, await modeOf(db)], [AUTHELIA.uid, 0o640]);
  const refused = nodeAs(PANEL, staged.panelTotp, { fake: staged.fakeAuthelia, authelia: autheliaDir });
  cannot(refused, 'the panel\'s setTotp');
  assert.match(refused.out, 'is not shared with Authelia\'s user and the panel\'s');
  assert.match(refused.out, 'run relay-panel install again');
  // open to its group, it is the panel's to use as it is
  await chmod(db, 0o660);
  can(nodeAs(PANEL, staged.panelTotp, { fake: staged.fakeAuthelia, authelia: autheliaDir }), 'the panel\'s setTotp on a 0660 storage of Authelia\'s');
}));

s.run();
