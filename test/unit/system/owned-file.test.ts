// What root reads of a less privileged user's files: a regular file of the expected owner, never
// through a link, never blocked by a FIFO, never more than the limit.
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { chown, mkdtemp, open, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readOwnedFile, readOwnedText, RefusedPathError } from '../../../lib/system/common/owned-file.ts';
import { withTimeout } from '../../helpers/timeout.ts';

const s = suite('readOwnedFile');
let dir = '';
const me = process.getuid!();
const rule = { owners: [me], maxBytes: 100 };

s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-owned-'));
});
s.after(() => rm(dir, { recursive: true, force: true }));

async function refusal(path: string, r = rule): Promise<string> {
  try {
    await readOwnedFile(path, r);
  } catch (e) {
    assert.instance(e, RefusedPathError);
    return (e as RefusedPathError).reason;
  }
  throw new Error(`${path} was read`);
}

s('a regular file of the owner is read whole', async () => {
  await writeFile(join(dir, 'ok.pem'), 'text\n');
  assert.is((await readOwnedFile(join(dir, 'ok.pem'), rule)).toString(), 'text\n');
  assert.is(await readOwnedText(join(dir, 'missing'), rule), null);
});

s('a link is refused, even to a file of the owner', async () => {
  await writeFile(join(dir, 'target'), 'secret');
  await symlink(join(dir, 'target'), join(dir, 'link'));
  assert.is(await refusal(join(dir, 'link')), 'a symbolic link');
});

s('a FIFO is refused at once instead of waiting for a writer', async () => {
  const fifo = join(dir, 'fifo');
  execFileSync('/usr/bin/mkfifo', [fifo]);
  try {
    // an open() waiting for a writer never returns: the timeout fails the test
    assert.is(await withTimeout('the FIFO refused', 20_000, () => refusal(fifo)), 'a FIFO, not a regular file');
  } finally {
    // a reader a regression left blocked in open() gets its writer, so the run can end
    await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then((h) => h.close(), () => undefined);
  }
});

s('a directory and a device are refused', async () => {
  assert.is(await refusal(dir), 'a directory, not a regular file');
  assert.is(await refusal('/dev/null', { owners: [0], maxBytes: 10 }), 'a device, not a regular file');
});

s('another owner is refused', async () => {
  if (me !== 0) return;
  await writeFile(join(dir, 'theirs'), 'x');
  await chown(join(dir, 'theirs'), 4242, 4242);
  assert.is(await refusal(join(dir, 'theirs')), 'owned by uid 4242, not 0');
});

s('more than the limit is refused', async () => {
  await writeFile(join(dir, 'big'), 'x'.repeat(101));
  assert.is(await refusal(join(dir, 'big')), '101 bytes, more than 100');
});

s.run();
