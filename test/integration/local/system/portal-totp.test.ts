// The panel's `authelia storage user totp generate` (host auth portal, setTotp) on the storage it
// shares with Authelia's own user: the database is 0660 afterwards whoever made it, and a link that
// Authelia's user could plant in its directory is never written through. The fake authelia writes
// its storage as SQLite does (made 0644 less the umask, links followed, a journal beside it).
import { chmod, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPortalFiles } from '../../../../lib/system/auth-portal/portal-files.ts';
import { RefusedPathError } from '../../../../lib/system/common/owned-file.ts';
import { systemConfig } from '../../../../lib/system/config.ts';
import { createHostAuthPortal } from '../../../../lib/system/auth-portal/host.ts';
import type { RootActions } from '../../../../lib/system/root/root-actions.ts';
import type { AuthPortalAdapter } from '../../../../lib/system/types.ts';
import { FIRST_PORTAL_USER } from '../../../helpers/portal-user.ts';
import { timed } from '../../../helpers/timeout.ts';

const FAKE_AUTHELIA = new URL('../../../fakes/bin/authelia', import.meta.url).pathname;

const s = suite('TOTP through Authelia\'s storage CLI, on a storage both users write');
let dir = '';
let portal: AuthPortalAdapter;
let db = '';
let argvLog = '';
const previousLog = process.env.FAKE_ARGV_LOG;

s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-portal-totp-'));
  argvLog = join(dir, 'argv.log');
  process.env.FAKE_ARGV_LOG = argvLog;
  const config = systemConfig({ driver: 'host', binaries: { authelia: FAKE_AUTHELIA }, authelia: { dir: join(dir, 'authelia') } });
  // only the files: the adapter's install would download the program and enable its unit
  const files = createPortalFiles(config, config.authelia.dir);
  await files.install('example.com', [FIRST_PORTAL_USER]);
  db = files.storagePath;
  portal = createHostAuthPortal(config, {} as RootActions);
});
s.after.each(async () => {
  if (previousLog === undefined) delete process.env.FAKE_ARGV_LOG;
  else process.env.FAKE_ARGV_LOG = previousLog;
  await rm(dir, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o7777;
const runs = async () => (await readFile(argvLog, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

s('no storage yet: the CLI writes a file the panel made 0660, not one of its umask\'s mode (0644 here)', timed(10_000, async () => {
  await portal.setTotp('alice', 'JBSWY3DPEHPK3PXP');
  assert.is(await modeOf(db), 0o660);
  assert.is(await readFile(db, 'utf8'), 'totp alice\n', 'the CLI wrote the storage');
  assert.not.ok(await stat(`${db}-journal`).catch(() => null), 'the journal is gone');
}));

s('an earlier release\'s storage (the panel\'s, 0600) is 0660 after the next TOTP, its content kept', timed(10_000, async () => {
  await writeFile(db, 'start\n', { mode: 0o600 });
  await chmod(db, 0o600);
  await portal.setTotp('bob', 'JBSWY3DPEE======');
  assert.is(await modeOf(db), 0o660);
  assert.is(await readFile(db, 'utf8'), 'start\ntotp bob\n');
}));

s('a link planted as the storage or its journal: refused before the CLI runs, nothing written through it', timed(10_000, async () => {
  const state = join(dir, 'tunnels.json');
  await writeFile(state, '[]\n', { mode: 0o600 });
  const refusedAt = async (path: string) => {
    try {
      await portal.setTotp('alice', 'JBSWY3DPEHPK3PXP');
      assert.unreachable('the CLI ran');
    } catch (e) {
      assert.instance(e, RefusedPathError);
      assert.is((e as RefusedPathError).path, path);
    }
  };
  await symlink(state, db);
  await refusedAt(db);
  await rm(db);
  await writeFile(db, '');
  await symlink(state, `${db}-journal`);
  await refusedAt(`${db}-journal`);
  assert.is(await runs(), 0, 'the CLI never ran');
  assert.equal([await readFile(state, 'utf8'), await modeOf(state)], ['[]\n', 0o600]);
  // the link gone, TOTP works again
  await rm(`${db}-journal`);
  await portal.setTotp('alice', 'JBSWY3DPEHPK3PXP');
  assert.is(await runs(), 1);
}));

s.run();
