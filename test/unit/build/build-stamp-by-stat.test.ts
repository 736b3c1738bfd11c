// The build stamp keeps an executable the package manager replaces (the node binary) by what stat
// says of it, not by its hash: a replaced binary builds again even with the same bytes (the startup
// snapshot's record counts it as another node), and an unchanged one is never read.
import { copyFile, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error plain JS build script
import { whyBuild, writeStamp } from '../../../build/build-stamp.mjs';

const s = suite<{ dir: string }>('build stamp: executables by stat', { dir: '' });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-stamp-stat-'));
});
s.after.each(async ({ dir }) => rm(dir, { recursive: true, force: true }));

async function stamped(dir: string) {
  const source = join(dir, 'src.ts');
  const node = join(dir, 'node');
  const output = join(dir, 'out.js');
  const stampFile = join(dir, 'stamp.json');
  await writeFile(source, 'export const a = 1;');
  await writeFile(node, 'the node binary');
  await writeFile(output, 'built');
  await writeStamp(stampFile, dir, [source], { byStat: [node] });
  return { source, node, why: () => whyBuild(stampFile, dir, [output]), stamp: async () => JSON.parse(await readFile(stampFile, 'utf8')) };
}

s('an executable is stamped by device, inode, size and times, with no hash; the sources keep theirs', async ({ dir }) => {
  const p = await stamped(dir);
  const { inputs } = await p.stamp();
  assert.equal(Object.keys(inputs.node).sort(), ['ctimeMs', 'dev', 'ino', 'mtimeMs', 'size']);
  assert.type(inputs['src.ts'].sha256, 'string');
  assert.is(await p.why(), null);
});

s('the same bytes put in place by a package manager (a new file renamed over it) build again', async ({ dir }) => {
  const p = await stamped(dir);
  await copyFile(p.node, `${p.node}.new`);
  await rename(`${p.node}.new`, p.node);
  assert.is(await p.why(), 'node changed (replaced or rewritten)');
});

s.run();
