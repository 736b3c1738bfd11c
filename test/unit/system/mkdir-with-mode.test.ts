// The panel's unit runs with UMask=0027; site folders must still be 0755 for nginx's workers.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirWithMode } from '../../../lib/system/common/fs.ts';

const s = suite('mkdirWithMode under the unit\'s umask');
let dir = '';
let umask = 0;
s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-mkdir-'));
  umask = process.umask(0o027);
});
s.after(async () => {
  process.umask(umask);
  await rm(dir, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

s('every directory it makes gets the mode, the umask notwithstanding; existing ones are left alone', async () => {
  const kept = join(dir, 'kept');
  await mkdirWithMode(kept, 0o700);
  assert.is(await modeOf(kept), 0o700);
  const deep = join(kept, 'a', 'b', 'c');
  assert.is(await mkdirWithMode(deep, 0o755, true), join(kept, 'a'));
  for (const path of [join(kept, 'a'), join(kept, 'a', 'b'), deep]) assert.is(await modeOf(path), 0o755, path);
  assert.is(await modeOf(kept), 0o700, 'the existing parent keeps its mode');
  assert.is(await mkdirWithMode(deep, 0o755, true), undefined, 'nothing new to make');
});

s('the single form makes one directory and fails on an existing one', async () => {
  const one = join(dir, 'one');
  await mkdirWithMode(one, 0o755);
  assert.is(await modeOf(one), 0o755);
  await mkdirWithMode(one, 0o755).then(() => assert.unreachable(), (e: NodeJS.ErrnoException) => assert.is(e.code, 'EEXIST'));
});

s.run();
