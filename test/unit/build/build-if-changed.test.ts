import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error plain JS build script
import { buildIfChanged } from '../../../build/build.mjs';

// `npm start` builds only when a source changed (build/build.mjs buildIfChanged with the build
// injected): a fresh checkout builds once, a start with nothing changed builds nothing.

const s = suite<{ dir: string }>('build: skipped when no input changed, redone when one did', { dir: '' });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-build-stamp-'));
});
s.after.each(async ({ dir }) => rm(dir, { recursive: true, force: true }));

/** A build of `dir`/src.ts into `dir`/out.js, counting its runs. */
function project(dir: string) {
  const source = join(dir, 'src.ts');
  const output = join(dir, 'out.js');
  const runs: number[] = [];
  const options = {
    stampFile: join(dir, 'stamp.json'),
    outputs: [output],
    base: dir,
    log: () => {},
    make: async () => {
      runs.push(Date.now());
      await writeFile(output, 'built');
      return [source];
    },
  };
  const start = async (extra = {}) => ((await buildIfChanged({ ...options, ...extra })) as { built: boolean }).built;
  return { source, output, runs, start };
}

s('a fresh checkout builds once; the next start builds nothing', async ({ dir }) => {
  const p = project(dir);
  await writeFile(p.source, 'export const a = 1;');
  assert.is(await p.start(), true);
  assert.is(await p.start(), false);
  assert.is(p.runs.length, 1);
});

s('a source whose content changed is built again', async ({ dir }) => {
  const p = project(dir);
  await writeFile(p.source, 'export const a = 1;');
  const past = new Date(Date.now() - 60_000);
  await utimes(p.source, past, past);
  await p.start();
  await writeFile(p.source, 'export const a = 2;');
  assert.is(await p.start(), true);
  assert.is(await p.start(), false, 'and then stamped again');
  await writeFile(p.source, 'export const a = 30;');
  await utimes(p.source, past, past);
  assert.is(await p.start(), true, 'another size, though the mtime was set back');
  assert.is(p.runs.length, 3);
});

s('a source touched without a change builds nothing', async ({ dir }) => {
  const p = project(dir);
  await writeFile(p.source, 'export const a = 1;');
  await p.start();
  const later = new Date(Date.now() + 5_000);
  await utimes(p.source, later, later);
  assert.is(await p.start(), false);
  assert.is(p.runs.length, 1);
});

s('a missing output, a deleted input or --force builds again', async ({ dir }) => {
  const p = project(dir);
  await writeFile(p.source, 'export const a = 1;');
  await p.start();
  await rm(p.output);
  assert.is(await p.start(), true, 'output missing');
  assert.is(await p.start({ force: true }), true, 'forced');
  await rm(p.source);
  assert.is(await p.start({ make: async () => [] }), true, 'input gone');
  assert.is(p.runs.length, 3);
});

s.run();
