// One proxy change of many vhosts writes their files together (writeFilesAtomic) and keeps the
// store's promises: each file stamped and linked as asked, a name changed twice in one change
// changed in order, and a failed nginx test putting every file and link back as it was.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { vhostIntact } from '../../../lib/system/proxy/vhost-stamp.ts';
import type { VhostChange, VhostSpec } from '../../../lib/system/types.ts';
import { vhostBox, type VhostBox } from '../../helpers/vhost-box.ts';

const s = suite<{ box: VhostBox }>('a proxy change of many vhosts', {} as { box: VhostBox });
s.before.each(async (ctx) => {
  ctx.box = await vhostBox('vhost-batch-');
});
s.after.each(({ box }) => box.remove());

const app = (i: number, port = 20000): VhostSpec => ({ kind: 'app', fqdn: `t${i}.example.test`, port: port + i });
const nameOf = (i: number) => `relay-app-t${i}.example.test.conf`;
const files = async (box: VhostBox, which: 'available' | 'enabled') => (await readdir(join(box.dir, which))).filter((name) => !name.startsWith('.')).sort();
const text = (box: VhostBox, i: number) => readFile(join(box.dir, 'available', nameOf(i)), 'utf8');

s('40 puts: every file written with its stamp, linked or not as asked, no temp file left', async ({ box }) => {
  await box.proxy.apply(Array.from({ length: 40 }, (_, i) => ({ op: 'put', spec: app(i), enabled: i % 4 !== 0 })));
  assert.is((await files(box, 'available')).length, 40);
  assert.equal(await files(box, 'enabled'), Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 4 !== 0).map(nameOf).sort());
  for (let i = 0; i < 40; i++) {
    const written = await text(box, i);
    assert.ok(vhostIntact(written) && written.includes(`127.0.0.1:${20000 + i}`), nameOf(i));
  }
  assert.equal((await readdir(join(box.dir, 'available'))).filter((name) => name.endsWith('.tmp')), []);
});

s('a name changed twice in one change is changed in order: put then remove leaves nothing, remove then put leaves the put', async ({ box }) => {
  await box.proxy.apply([{ op: 'put', spec: app(1), enabled: true }]);
  await box.proxy.apply([{ op: 'put', spec: app(1, 30000), enabled: true }, { op: 'remove', name: nameOf(1) }, { op: 'put', spec: app(2), enabled: true }]);
  assert.equal(await files(box, 'available'), [nameOf(2)]);
  await box.proxy.apply([{ op: 'remove', name: nameOf(2) }, { op: 'put', spec: app(2, 30000), enabled: false }]);
  assert.match(await text(box, 2), '127.0.0.1:30002');
  assert.equal(await files(box, 'enabled'), []);
});

s('a failed nginx test puts every file and link back: changed ones to their old text, new ones gone', async ({ box }) => {
  await box.proxy.apply(Array.from({ length: 10 }, (_, i) => ({ op: 'put', spec: app(i), enabled: i % 2 === 0 })));
  const before = await Promise.all(Array.from({ length: 10 }, (_, i) => text(box, i)));
  const linkedBefore = await files(box, 'enabled');
  box.failTest = 'nginx: [emerg] broken';
  const change: VhostChange[] = Array.from({ length: 20 }, (_, i) => ({ op: 'put', spec: app(i, 30000), enabled: true }));
  await box.proxy.apply(change).then(() => assert.unreachable(), (error: Error) => assert.match(error.message, 'broken'));
  assert.equal(await Promise.all(Array.from({ length: 10 }, (_, i) => text(box, i))), before);
  assert.equal(await files(box, 'available'), Array.from({ length: 10 }, (_, i) => nameOf(i)).sort());
  assert.equal(await files(box, 'enabled'), linkedBefore);
});

s.run();
