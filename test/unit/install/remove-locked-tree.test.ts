// Root removes a tree another user owns (the panel's code cache at uninstall) without following
// anything that user could put there: links are removed, never followed; each directory is made
// root's before it is read.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { removeLockedTree } from '../../../lib/install/files.ts';

const s = suite('removeLockedTree');
let dir = '';
s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-remove-'));
});
s.after.each(() => rm(dir, { recursive: true, force: true }));

s('the tree goes; what its links point at stays', async () => {
  const outside = join(dir, 'outside');
  await mkdir(outside);
  await writeFile(join(outside, 'precious'), 'keep');
  const tree = join(dir, 'cache');
  await mkdir(join(tree, 'sub'), { recursive: true });
  await writeFile(join(tree, 'sub', 'file'), 'x');
  await symlink(outside, join(tree, 'link-to-dir'));
  await symlink(join(outside, 'precious'), join(tree, 'sub', 'link-to-file'));
  execFileSync('/usr/bin/mkfifo', [join(tree, 'fifo')]);
  if (process.getuid?.() === 0) execFileSync('/bin/chown', ['-R', '-h', '4242:4242', tree]);
  await removeLockedTree(tree);
  assert.is(await stat(tree).catch(() => null), null);
  assert.equal(await readdir(outside), ['precious']);
});

s('a link in the tree\'s own place is removed, not followed; a missing tree is fine', async () => {
  const outside = join(dir, 'outside');
  await mkdir(outside);
  await writeFile(join(outside, 'precious'), 'keep');
  await symlink(outside, join(dir, 'cache'));
  await removeLockedTree(join(dir, 'cache'));
  assert.equal(await readdir(outside), ['precious']);
  assert.equal((await readdir(dir)).sort(), ['outside']);
  await removeLockedTree(join(dir, 'nothing'));
});

s.run();
