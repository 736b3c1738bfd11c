// writeFilesAtomic: many files replaced at once, each as writeFileAtomic replaces one, with their
// temp files synced together; a temp file that cannot be written means none is replaced.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFilesAtomic } from '../../../lib/state/atomic-write.ts';

const s = suite<{ dir: string }>('many files replaced atomically', { dir: '' });
s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-atomic-files-'));
});
s.after.each(async ({ dir }) => rm(dir, { recursive: true, force: true }));

s('every file gets its content and its mode; old files are replaced; no temp file stays', async ({ dir }) => {
  await writeFile(join(dir, 'f3'), 'old');
  const files = Array.from({ length: 40 }, (_, i) => ({ path: join(dir, `f${i}`), data: `content ${i}\n`, mode: i % 2 ? 0o600 : 0o644 }));
  await writeFilesAtomic(files);
  for (const [i, file] of files.entries()) {
    assert.is(await readFile(file.path, 'utf8'), `content ${i}\n`);
    assert.is((await stat(file.path)).mode & 0o777, file.mode, `mode of f${i}`);
  }
  assert.equal((await readdir(dir)).filter((name) => name.endsWith('.tmp')), []);
});

s('a temp file that cannot be written: none is replaced, no temp file stays, the error reaches the caller', async ({ dir }) => {
  await writeFile(join(dir, 'a'), 'old a');
  await writeFile(join(dir, 'b'), 'old b');
  const files = [
    { path: join(dir, 'a'), data: 'new a' },
    { path: join(dir, 'missing-dir', 'c'), data: 'new c' },
    { path: join(dir, 'b'), data: 'new b' },
  ];
  await writeFilesAtomic(files).then(() => assert.unreachable(), (error: NodeJS.ErrnoException) => assert.is(error.code, 'ENOENT'));
  assert.is(await readFile(join(dir, 'a'), 'utf8'), 'old a');
  assert.is(await readFile(join(dir, 'b'), 'utf8'), 'old b');
  assert.equal((await readdir(dir)).sort(), ['a', 'b']);
});

s('no files: nothing to do', async ({ dir }) => {
  await writeFilesAtomic([]);
  assert.equal(await readdir(dir), []);
});

s.run();
