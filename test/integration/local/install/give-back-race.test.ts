// The give-back (lib/install/give-back.ts) against a process of the panel's user (uid 4242, a child
// this test starts with that uid) that races it: planting links to /etc and /etc/shadow, hooks and
// directories, reopening its directories' modes and swapping a directory for a link while the walk
// runs; and one that holds a renewal configuration open for writing across the give-back and writes
// a pre_hook into it afterwards. Whatever interleaving happens, root ends up following nothing and
// owning everything that stays, and the late write lands in nothing root reads. Needs root.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, lstat, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { giveBack } from '../../../../lib/install/give-back.ts';
import { isCertbotLiveLink } from '../../../../lib/install/give-back-rules.ts';
import { certbotConfigTree, dirsUnder, OPERATOR, PANEL, readTree, text, type Dirs } from '../../../unit/install/give-back-fixture.ts';

const isRoot = process.getuid?.() === 0;
const RUN = '20250101T120000Z';

/** The panel's user's process: holds a file open, or races every directory it is given. */
const RACER = `
import fs from 'node:fs';
import { createInterface } from 'node:readline';
const [mode, ...args] = process.argv.slice(2);
let done = 0;
const quiet = (f) => { try { f(); done++; } catch {} };
if (mode === 'hold') {
  const fd = fs.openSync(args[0], fs.constants.O_WRONLY | fs.constants.O_APPEND);
  console.log('ready');
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'write') { let n = 0; quiet(() => { n = fs.writeSync(fd, 'pre_hook = touch /root/pwned\\n'); }); console.log('wrote ' + n); }
  }
} else {
  const dirs = JSON.parse(args[0]);
  let round = 0;
  for (;;) {
    for (const d of dirs) {
      quiet(() => fs.chmodSync(d, 0o777));
      quiet(() => fs.unlinkSync(d + '/privkey.pem'));
      quiet(() => fs.symlinkSync('/etc/shadow', d + '/privkey.pem'));
      quiet(() => fs.symlinkSync('/etc', d + '/etc-link'));
      quiet(() => fs.mkdirSync(d + '/new'));
      quiet(() => fs.writeFileSync(d + '/new/hook', '#!/bin/sh\\ntouch /root/pwned\\n', { mode: 0o755 }));
      quiet(() => fs.writeFileSync(d + '/planted', 'pre_hook = touch /root/pwned\\n', { mode: 0o777 }));
      quiet(() => fs.renameSync(d + '/sub', d + '/sub.away'));
      quiet(() => fs.symlinkSync('/etc', d + '/sub'));
      quiet(() => fs.unlinkSync(d + '/sub'));
      quiet(() => fs.renameSync(d + '/sub.away', d + '/sub'));
    }
    if (round++ === 0) console.log(done > 0 ? 'ready' : 'blocked');
  }
}
`;

interface Ctx { base: string; d: Dirs; q: string; child: ChildProcess | null }
const s = suite<Ctx>("the give-back raced by the panel's user", { base: '', d: dirsUnder('/nonexistent'), q: '', child: null });

s.before.each(async (ctx) => {
  // the panel's user must reach the tree: every directory above it root's, and 0711 or 0755
  ctx.base = await mkdtemp(join(process.platform === 'linux' ? '/dev/shm' : tmpdir(), 'relay-give-back-race-'));
  await chmod(ctx.base, 0o711);
  ctx.d = dirsUnder(ctx.base);
  ctx.q = join(ctx.base, 'quarantine');
  for (const dir of [ctx.d.workDir, ctx.d.logsDir, ctx.d.webroot, join(ctx.base, 'etc')]) await mkdir(dir, { recursive: true, mode: 0o755 });
  await writeFile(join(ctx.base, 'racer.mjs'), RACER, { mode: 0o644 });
});
s.after.each(async (ctx) => {
  if (ctx.child && ctx.child.exitCode === null && ctx.child.signalCode === null) {
    ctx.child.kill('SIGKILL');
    await once(ctx.child, 'exit');
  }
  ctx.child = null;
  await rm(ctx.base, { recursive: true, force: true });
});

function startRacer(ctx: Ctx, args: string[]): { lines: AsyncIterator<string>; child: ChildProcess } {
  const child = spawn(process.execPath, [join(ctx.base, 'racer.mjs'), ...args], { uid: PANEL.uid, gid: PANEL.gid, cwd: '/', stdio: ['pipe', 'pipe', 'inherit'] });
  ctx.child = child;
  return { child, lines: createInterface({ input: child.stdout! })[Symbol.asyncIterator]() };
}

// owners and modes, not change times: the install lane's useradd and userdel, beside this file, change those of both
const etcState = async () => Promise.all(['/etc', '/etc/shadow'].map(async (p) => {
  const st = await lstat(p);
  return [p, st.uid, st.gid, st.mode];
}));

/** What must hold whatever the interleaving: nothing of the panel's, no link but certbot's (and root's own), no FIFO, no directory others can write. */
async function assertRootOnly(ctx: Ctx): Promise<void> {
  const c = ctx.d.configDir;
  const tree = await readTree(c);
  assert.equal(Object.entries(tree).filter(([p, e]) => e.uid === PANEL.uid && !p.startsWith('other-user/')).map(([p]) => p), []);
  assert.equal(Object.entries(tree).filter(([p, e]) => e.type === 'link' && p !== 'live/operator-note' && !isCertbotLiveLink(p, e.target!)).map(([p, e]) => `${p} -> ${e.target}`), []);
  assert.equal(Object.entries(tree).filter(([, e]) => e.type === 'dir' && (e.mode & 0o7022) !== 0 && e.uid !== 5151).map(([p]) => p), []);
  assert.equal(Object.entries(tree).filter(([, e]) => e.type === 'fifo').map(([p]) => p), []);
  assert.equal(Object.entries(await readTree(ctx.q)).filter(([, e]) => e.uid !== 0).map(([p]) => p), [], 'the quarantine is root\'s');
}

s('a process of the panel\'s user racing the walk: whatever it planted in time is quarantined, nothing it does after its directory is locked lands, /etc is never touched', async (ctx) => {
  if (!isRoot) return console.warn('needs root: skipped');
  const c = ctx.d.configDir;
  await certbotConfigTree(ctx.d, ctx.base);
  const dirs = Object.entries(await readTree(c)).filter(([, e]) => e.type === 'dir' && e.uid === PANEL.uid).map(([p]) => join(c, p));
  const etc = await etcState();
  for (let round = 0; round < 3; round++) {
    const { lines, child } = startRacer(ctx, ['race', JSON.stringify([c, ...dirs])]);
    assert.equal((await lines.next()).value, 'ready');
    const report = await giveBack({ dir: c, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config' });
    assert.ok(report.quarantined.length > 9, 'the fixture\'s nine plants and some of the racer\'s');
    await assertRootOnly(ctx);
    const settled = await readTree(c);
    // the racer keeps going: none of it reaches the tree any more
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await readTree(c), settled);
    child.kill('SIGKILL');
    await once(child, 'exit');
    assert.equal(await etcState(), etc);
    // the next round races a fresh tree
    await rm(c, { recursive: true, force: true });
    await certbotConfigTree(ctx.d, ctx.base);
  }
});

s('a renewal configuration held open for writing across the give-back: the pre_hook written afterwards lands in the old file, not in the one root\'s certbot reads', async (ctx) => {
  if (!isRoot) return console.warn('needs root: skipped');
  const c = ctx.d.configDir;
  await certbotConfigTree(ctx.d, ctx.base);
  const conf = join(c, 'renewal', `${OPERATOR}.conf`);
  const before = await text(conf);
  const { lines, child } = startRacer(ctx, ['hold', conf]);
  assert.equal((await lines.next()).value, 'ready');
  const report = await giveBack({ dir: c, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config' });
  assert.not.ok(report.quarantined.some((e) => e.path === conf), 'the operator\'s configuration stays');
  child.stdin!.write('write\n');
  assert.equal((await lines.next()).value, 'wrote 29', 'the write itself succeeded: the descriptor is still good');
  assert.is(await text(conf), before, 'what root\'s certbot reads has no pre_hook');
  const st = await lstat(conf);
  assert.equal([st.uid, st.mode & 0o7777], [0, 0o644]);
});

s('a file under a lease of the panel\'s user (an open by anyone else would wait up to 45 s) is never waited for: it goes to quarantine by name', async (ctx) => {
  if (!isRoot) return console.warn('needs root: skipped');
  const c = ctx.d.configDir;
  await certbotConfigTree(ctx.d, ctx.base);
  const key = join(c, 'keys/0000_key-certbot.pem');
  const child = spawn('/usr/bin/python3', ['-c', `
import fcntl, os, signal, sys, time
signal.signal(signal.SIGIO, signal.SIG_IGN)
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
print('ready', flush=True)
time.sleep(60)
`, key], { uid: PANEL.uid, gid: PANEL.gid, cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
  ctx.child = child;
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  assert.equal((await lines.next()).value, 'ready');
  // the reason says it did not wait for the lease (a wait would last the holder's 60 s)
  const report = await giveBack({ dir: c, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config' });
  const entry = report.quarantined.find((e) => e.path === key);
  assert.equal([entry?.type, entry?.reason], ['file', "it could not be opened without waiting (a lease held by a process of the panel's user)"]);
  const held = await lstat(entry!.to!);
  assert.equal([held.uid, held.isFile()], [0, true]);
});

s.run();
