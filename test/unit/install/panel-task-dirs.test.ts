// The directories inside the panel's own are made by the panel's user (panel-task `dirs`): a link,
// a file or another owner's directory where one belongs is refused by name, never followed.
import { chmod, chown, lstat, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDirs } from '../../../lib/install/panel-task/dirs.ts';

const s = suite('panel-task dirs');
let dir = '';
s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-panel-dirs-'));
});
s.after.each(() => rm(dir, { recursive: true, force: true }));

const mode = async (path: string) => (await lstat(path)).mode & 0o7777;

s('missing ones are made with their mode, parents first; a wrong mode is put right; the rest is left', async () => {
  const made = await makeDirs([{ path: join(dir, 'pki'), mode: 0o700 }, { path: join(dir, 'pki', 'inner'), mode: 0o750 }]);
  assert.equal(made.made, [join(dir, 'pki'), join(dir, 'pki', 'inner')]);
  assert.equal([await mode(join(dir, 'pki')), await mode(join(dir, 'pki', 'inner'))], [0o700, 0o750]);
  await mkdir(join(dir, 'cert'));
  await chmod(join(dir, 'cert'), 0o777);
  assert.equal((await makeDirs([{ path: join(dir, 'cert'), mode: 0o755 }, { path: join(dir, 'pki'), mode: 0o700 }])).made, [join(dir, 'cert')]);
  assert.is(await mode(join(dir, 'cert')), 0o755);
});

s('a link in place of a directory is refused and its target untouched', async () => {
  const target = join(dir, 'root-only');
  await mkdir(target, { mode: 0o700 });
  await symlink(target, join(dir, 'ip-panel-cert'));
  try {
    await makeDirs([{ path: join(dir, 'ip-panel-cert'), mode: 0o755 }]);
    assert.unreachable('a link was accepted');
  } catch (e) {
    assert.match((e as Error).message, `${join(dir, 'ip-panel-cert')} is a symbolic link, not a directory: move it aside, then run install again`);
  }
  assert.is(await mode(target), 0o700);
});

s('a file, or a directory of another owner, is refused', async () => {
  await writeFile(join(dir, 'file'), '');
  try {
    await makeDirs([{ path: join(dir, 'file'), mode: 0o755 }]);
    assert.unreachable();
  } catch (e) {
    assert.match((e as Error).message, 'is a file, not a directory');
  }
  if (process.getuid?.() !== 0) return;
  await mkdir(join(dir, 'theirs'));
  await chown(join(dir, 'theirs'), 4242, 4242);
  try {
    await makeDirs([{ path: join(dir, 'theirs'), mode: 0o755 }]);
    assert.unreachable();
  } catch (e) {
    assert.match((e as Error).message, 'belongs to uid 4242');
  }
});

s.run();
