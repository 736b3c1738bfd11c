// The tunnel server's key fingerprint is read once per change of its directory, never per request:
// the read (a stat, and a parse when the file changed) is counted through the injected reader.
import { copyFile, mkdtemp, rename, rm } from 'node:fs/promises';
import { watch as fsWatch, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureHostKey, hostKeyFingerprint, hostKeyPath } from '../../../lib/system/tunnel-server/host-key.ts';
import { watchedHostKeyFingerprint } from '../../../lib/system/tunnel-server/host-key-watch.ts';

const FIXTURE = new URL('../../fixtures/chisel-host-key/host-key.pem', import.meta.url);
const FIXTURE_PRINT = 'i7MrcgwAumk8YEttcyeVngWmY+DvhV46EF1hawtrALQ=';

const s = suite<{ dir: string; reads: number; read: () => Promise<string | null> }>('tunnels: host key fingerprint from a watch', {} as never);
s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-key-watch-'));
  ctx.reads = 0;
  const real = hostKeyFingerprint(ctx.dir);
  ctx.read = () => (ctx.reads++, real());
});
s.after.each(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

/** Asks until the answer is `want` (the watch tells on a later turn of the event loop), within 10 s. */
async function eventually(fingerprint: () => Promise<string | null>, want: string): Promise<string | null> {
  let seen = await fingerprint();
  for (let i = 0; i < 1000 && seen !== want; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    seen = await fingerprint();
  }
  return seen;
}

s('N requests read the key file once; a key renamed into place is the next answer within the watch\'s delay', async (ctx) => {
  const made = await ensureHostKey(ctx.dir);
  const fingerprint = watchedHostKeyFingerprint(ctx.dir, { read: ctx.read });
  for (let i = 0; i < 50; i++) assert.is(await fingerprint(), made.fingerprint);
  // a turn of the event loop: no event without a change
  await new Promise((resolve) => setTimeout(resolve, 30));
  for (let i = 0; i < 50; i++) await fingerprint();
  assert.is(ctx.reads, 1, '100 answers, one read');

  // a restore: a new file renamed over the key, as an atomic replace does
  await copyFile(FIXTURE, `${hostKeyPath(ctx.dir)}.restored`);
  await rename(`${hostKeyPath(ctx.dir)}.restored`, hostKeyPath(ctx.dir));
  assert.is(await eventually(fingerprint, FIXTURE_PRINT), FIXTURE_PRINT);
  const afterRestore = ctx.reads;
  await new Promise((resolve) => setTimeout(resolve, 30));
  for (let i = 0; i < 50; i++) assert.is(await fingerprint(), FIXTURE_PRINT);
  assert.is(ctx.reads, afterRestore, 'remembered again once the change was read');
});

s('a key removed is seen (null), and one made later too', async (ctx) => {
  await copyFile(FIXTURE, hostKeyPath(ctx.dir));
  const fingerprint = watchedHostKeyFingerprint(ctx.dir, { read: ctx.read });
  assert.is(await fingerprint(), FIXTURE_PRINT);
  await rm(hostKeyPath(ctx.dir));
  let seen = await fingerprint();
  for (let i = 0; i < 100 && seen !== null; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    seen = await fingerprint();
  }
  assert.is(seen, null);
  const made = await ensureHostKey(ctx.dir);
  assert.is(await eventually(fingerprint, made.fingerprint), made.fingerprint);
});

s('a watch that cannot be armed, or that errs, falls back to reading the file at every call', async (ctx) => {
  await copyFile(FIXTURE, hostKeyPath(ctx.dir));
  const refused = watchedHostKeyFingerprint(ctx.dir, { read: ctx.read, watch: () => { throw Object.assign(new Error('no watches left'), { code: 'ENOSPC' }); } });
  for (let i = 0; i < 3; i++) assert.is(await refused(), FIXTURE_PRINT);
  assert.is(ctx.reads, 3);

  ctx.reads = 0;
  const watchers: FSWatcher[] = [];
  const erring = watchedHostKeyFingerprint(ctx.dir, { read: ctx.read, watch: (dir, onEvent) => { const w = fsWatch(dir, { persistent: false }, onEvent); watchers.push(w); return w; } });
  await erring();
  await erring();
  assert.is(ctx.reads, 1);
  watchers[0]!.emit('error', new Error('watch failed'));
  // the key changed while the watch was broken: read again, not the remembered answer
  const other = await ensureHostKey(await mkdtemp(join(ctx.dir, 'other-')));
  await copyFile(other.path, `${hostKeyPath(ctx.dir)}.new`);
  await rename(`${hostKeyPath(ctx.dir)}.new`, hostKeyPath(ctx.dir));
  assert.is(await erring(), other.fingerprint);
  assert.is(ctx.reads, 2, 'read again after the error');
  assert.is(watchers.length, 2, 'and watched anew');
  for (const w of watchers) w.close();
});

s.run();
