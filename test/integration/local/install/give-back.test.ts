// The give-back of an earlier release's certbot directories to root (lib/install/give-back.ts), on
// trees chowned to a fake panel uid (4242) with what a compromised panel user could plant: what
// becomes root's, what goes to quarantine and why, what is left alone, and that nothing is followed
// or waited on. Needs root (chown to other uids).
import { chmod, chown, link, lstat, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTimeout } from '../../../helpers/timeout.ts';
import { giveBack, type GiveBackReport } from '../../../../lib/install/give-back.ts';
import { nodeGiveBackFs, type GiveBackFs } from '../../../../lib/install/give-back-fs.ts';
import { certbotConfigTree, chownTree, dirsUnder, mkfifo, OPERATOR, OTHER, PANEL, readTree, renewalConf, setDefaultAcl, text, xattrs, type Dirs } from '../../../unit/install/give-back-fixture.ts';

const isRoot = process.getuid?.() === 0;
const RUN = '20250101T120000Z';
interface Ctx { base: string; d: Dirs; q: string }
const s = suite<Ctx>('giving an earlier release\'s certbot directories back to root', { base: '', d: dirsUnder('/nonexistent'), q: '' });

s.before.each(async (ctx) => {
  ctx.base = await mkdtemp(join(tmpdir(), 'relay-give-back-'));
  await chmod(ctx.base, 0o700);
  ctx.d = dirsUnder(ctx.base);
  ctx.q = join(ctx.base, 'quarantine');
  for (const dir of [ctx.d.workDir, ctx.d.logsDir, ctx.d.webroot]) await mkdir(dir, { recursive: true, mode: 0o755 });
});
s.after.each(async (ctx) => {
  await rm(ctx.base, { recursive: true, force: true });
});

/**
 * What about /etc a run could change: owners and modes of /etc, /etc/shadow (root:shadow 0640, so a
 * chown to root shows) and /etc/hostname, and /etc/hostname's change time. Not the change times of
 * /etc and /etc/shadow: the install lane's useradd and userdel, running beside this file, change both.
 */
const etcState = async () => Promise.all(['/etc', '/etc/shadow', '/etc/hostname'].map(async (p) => {
  const st = await lstat(p);
  return [p, st.uid, st.gid, st.mode, p === '/etc/hostname' ? st.ctimeMs : 0];
}));

const byPath = (r: GiveBackReport) => [...r.quarantined].sort((a, b) => a.path.localeCompare(b.path));

s('certbot\'s configuration directory: the operator\'s lineage becomes root\'s, every plant goes to quarantine with why, other users\' entries stay', async (ctx) => {
  if (!isRoot) return console.warn('needs root: skipped');
  const c = ctx.d.configDir;
  await certbotConfigTree(ctx.d, ctx.base);
  setDefaultAcl(join(c, 'renewal'));
  const etc = await etcState();
  const before = await readTree(c);
  const confBefore = await text(join(c, 'renewal', `${OPERATOR}.conf`));

  const report = await giveBack({ dir: c, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config' });
  assert.equal(await etcState(), etc, '/etc untouched');
  assert.is(report.dir, c);
  assert.ok(report.present);
  assert.equal(report.givenBack, { directories: 17, files: 12, links: 4 });
  assert.is(report.aclsRemoved, 2, 'the default ACL on renewal/ and the one the new copy inherited from it');
  assert.equal(xattrs(join(c, 'renewal')), []);
  assert.equal(xattrs(join(c, 'renewal', `${OPERATOR}.conf`)), []);

  const q = (rel: string) => join(ctx.q, RUN, c.slice(1), rel);
  assert.equal(byPath(report).map((e) => [e.path.slice(c.length + 1), e.to, e.type]), [
    ['archive/y', q('archive/y'), 'link'],
    ['cli.ini', q('cli.ini'), 'file'],
    ['live/fifo.example.org/fullchain.pem', q('live/fifo.example.org/fullchain.pem'), 'fifo'],
    ['live/x/privkey.pem', q('live/x/privkey.pem'), 'link'],
    ['renewal-hooks/deploy/sub', q('renewal-hooks/deploy/sub'), 'directory'],
    ['renewal-hooks/post/evil', q('renewal-hooks/post/evil'), 'file'],
    ['renewal-hooks/pre/planted', q('renewal-hooks/pre/planted'), 'file'],
    ['renewal/hooked.example.org.conf', q('renewal/hooked.example.org.conf'), 'file'],
    ['renewal/panelpath.example.org.conf', q('renewal/panelpath.example.org.conf'), 'file'],
  ]);
  const why = Object.fromEntries(report.quarantined.map((e) => [e.path.slice(c.length + 1), e.reason]));
  assert.match(why['renewal-hooks/pre/planted']!, "root's certbot would run it");
  assert.match(why['renewal-hooks/post/evil']!, "root's certbot would run it");
  assert.match(why['renewal/hooked.example.org.conf']!, "it names a hook (pre_hook = touch /root/pwned): root's certbot would run it");
  assert.match(why['renewal/panelpath.example.org.conf']!, `it names ${join(ctx.base, 'var/lib/relay-panel-acme')}, and ${join(ctx.base, 'var/lib/relay-panel-acme')} is owned by uid 4242`);
  assert.match(why['cli.ini']!, "it sets deploy-hook = touch /root/pwned: root's certbot would run it");
  assert.match(why['live/x/privkey.pem']!, 'a link of the panel\'s user to /etc/shadow');
  assert.match(why['live/fifo.example.org/fullchain.pem']!, 'a FIFO');
  assert.equal(report.quarantined.find((e) => e.type === 'link' && e.path.endsWith('archive/y'))?.target, '/etc');
  assert.equal(report.notes, [{ path: join(c, 'other-user'), note: 'owned by uid 5151: not descended (not the panel\'s, and its owner can change it)' }]);

  const after = await readTree(c);
  // nothing of the panel's is left, but inside another user's directory
  assert.equal(Object.entries(after).filter(([, e]) => e.uid === PANEL.uid).map(([p]) => p), ['other-user/inside.pem']);
  assert.equal(Object.entries(after).filter(([, e]) => e.type === 'dir' && (e.mode & 0o7022) !== 0).map(([p]) => p), [], 'no directory writable but by root, no setgid');
  const links = Object.entries(after).filter(([, e]) => e.type === 'link').map(([p, e]) => [p, e.target, e.uid]);
  assert.equal(links, [
    ['live/operator-note', '/etc/hostname', 0],
    [`live/${OPERATOR}/cert.pem`, `../../archive/${OPERATOR}/cert1.pem`, 0],
    [`live/${OPERATOR}/chain.pem`, `../../archive/${OPERATOR}/chain1.pem`, 0],
    [`live/${OPERATOR}/fullchain.pem`, `../../archive/${OPERATOR}/fullchain1.pem`, 0],
    [`live/${OPERATOR}/privkey.pem`, `../../archive/${OPERATOR}/privkey1.pem`, 0],
  ]);
  assert.equal(Object.entries(after).filter(([, e]) => e.type === 'fifo'), []);
  assert.equal(after['csr'], { type: 'dir', uid: 0, gid: 0, mode: 0o755 }, 'a 0777 directory loses group and other write');
  assert.equal(after['keys'], { type: 'dir', uid: 0, gid: 0, mode: 0o700 });
  assert.equal(after['keys/setuid-tool'], { type: 'file', uid: 0, gid: 0, mode: 0o755 }, 'setuid goes before the file is root\'s');
  assert.equal(after['keys/0000_key-certbot.pem'], { type: 'file', uid: 0, gid: 0, mode: 0o600 });
  assert.equal(after['keys/0001_key-other.pem'], before['keys/0001_key-other.pem'], 'another user\'s file stays as it was');
  assert.equal(after['other-user'], before['other-user']);
  assert.equal(after['renewal-hooks/post'], before['renewal-hooks/post']);
  assert.equal(after['renewal-hooks/post/operator-mail'], before['renewal-hooks/post/operator-mail'], 'the operator\'s own hook (root\'s) stays');
  assert.equal(after[`archive/${OPERATOR}/privkey1.pem`], { type: 'file', uid: 0, gid: 0, mode: 0o600 });
  assert.equal(after[`accounts/acme-v02.api.letsencrypt.org/directory/b9b4020030985ccaecd7c4d962960a42/private_key.json`], { type: 'file', uid: 0, gid: 0, mode: 0o400 });
  assert.equal(after[`renewal/${OPERATOR}.conf`], { type: 'file', uid: 0, gid: 0, mode: 0o644 });
  assert.is(await text(join(c, 'renewal', `${OPERATOR}.conf`)), confBefore);
  assert.ok(Object.keys(after).every((p) => !p.includes('.relay-panel-give-back-')), 'no temporary copy left');

  // the quarantine: root's alone, every entry root's, the entries as they were
  const qs = await lstat(ctx.q);
  assert.equal([qs.uid, qs.mode & 0o7777], [0, 0o700]);
  const held = await readTree(ctx.q);
  assert.equal(Object.entries(held).filter(([, e]) => e.uid !== 0).map(([p]) => p), []);
  assert.is(held[join(RUN, c.slice(1), 'live/x/privkey.pem')]?.target, '/etc/shadow');
  assert.is(held[join(RUN, c.slice(1), 'live/fifo.example.org/fullchain.pem')]?.type, 'fifo');
  assert.is(held[join(RUN, c.slice(1), 'renewal-hooks/deploy/sub/x')]?.type, 'file');
  assert.is(await text(q('renewal/hooked.example.org.conf')), renewalConf(ctx.d, 'hooked.example.org', 'pre_hook = touch /root/pwned\n'));
  assert.is(await text(q('renewal-hooks/pre/planted')), '#!/bin/sh\ntouch /root/pwned\n');
  assert.is(held[join(RUN, c.slice(1), 'renewal-hooks/pre/planted')]?.mode, 0o755, 'kept executable for the operator to put back');

  // a second run finds nothing to do
  const again = await giveBack({ dir: c, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config' });
  assert.equal([again.givenBack, again.quarantined, again.aclsRemoved], [{ directories: 0, files: 0, links: 0 }, [], 0]);
  assert.equal(await readTree(c), after);
});

s('the webroot: back to root:root 0755, the panel\'s leftovers root\'s, its link and FIFO to quarantine, root\'s own page untouched', async (ctx) => {
  if (!isRoot) return console.warn('needs root: skipped');
  const w = ctx.d.webroot;
  await writeFile(join(w, 'index.nginx-debian.html'), '<html>');
  await mkdir(join(w, '.well-known/acme-challenge'), { recursive: true });
  await writeFile(join(w, '.well-known/acme-challenge/tok3n'), 'tok3n.thumb');
  await symlink('/etc', join(w, '.well-known/etc'));
  mkfifo(join(w, 'pipe'));
  await chownTree(join(w, '.well-known'), PANEL.uid, PANEL.gid);
  await chown(join(w, 'pipe'), PANEL.uid, PANEL.gid);
  await chmod(join(w, '.well-known'), 0o2775);
  await chown(w, 0, PANEL.gid);
  await chmod(w, 0o2775);

  const report = await giveBack({ dir: w, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'webroot' });
  assert.equal(report.givenBack, { directories: 3, files: 1, links: 0 });
  assert.equal(byPath(report).map((e) => [e.path, e.type]), [[join(w, '.well-known/etc'), 'link'], [join(w, 'pipe'), 'fifo']]);
  const after = await readTree(w);
  const top = await lstat(w);
  assert.equal([top.uid, top.gid, top.mode & 0o7777], [0, 0, 0o755]);
  assert.equal(after, {
    '.well-known': { type: 'dir', uid: 0, gid: 0, mode: 0o755 },
    '.well-known/acme-challenge': { type: 'dir', uid: 0, gid: 0, mode: 0o755 },
    '.well-known/acme-challenge/tok3n': { type: 'file', uid: 0, gid: 0, mode: 0o644 },
    'index.nginx-debian.html': { type: 'file', uid: 0, gid: 0, mode: 0o644 },
  });
});

s('the work directory: installer checkpoints go to quarantine (root\'s certbot restores files from them), the rest becomes root\'s; the logs directory: its files root\'s, a link away', async (ctx) => {
  if (!isRoot) return console.warn('needs root: skipped');
  const work = ctx.d.workDir;
  await mkdir(join(work, 'backups/1700000000.0'), { recursive: true });
  await writeFile(join(work, 'backups/1700000000.0/FILEPATHS'), '/etc/shadow\n');
  await writeFile(join(work, 'backups/1700000000.0/shadow_0'), 'root::0:0:99999:7:::\n');
  await mkdir(join(work, 'temp_checkpoint'));
  await writeFile(join(work, 'temp_checkpoint/FILEPATHS'), '/etc/sudoers\n');
  await writeFile(join(work, '.certbot.lock'), '');
  await chownTree(work, PANEL.uid, PANEL.gid);
  await chown(join(work, 'temp_checkpoint'), 0, 0); // made root's by a run stopped halfway
  const report = await giveBack({ dir: work, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-work' });
  assert.equal(report.givenBack, { directories: 1, files: 1, links: 0 });
  assert.equal(byPath(report).map((e) => [e.path.slice(work.length + 1), e.type]), [['backups', 'directory'], ['temp_checkpoint/FILEPATHS', 'file']]);
  assert.match(report.quarantined[0]!.reason, "root's certbot would restore files from it");
  assert.equal(await readdir(work), ['.certbot.lock', 'temp_checkpoint']);
  assert.equal(await readdir(join(work, 'temp_checkpoint')), []);
  assert.is(await text(join(ctx.q, RUN, work.slice(1), 'backups/1700000000.0/FILEPATHS')), '/etc/shadow\n');
  assert.equal(Object.values(await readTree(ctx.q)).filter((e) => e.uid !== 0), []);

  const logs = ctx.d.logsDir;
  await writeFile(join(logs, 'letsencrypt.log'), 'log\n');
  await writeFile(join(logs, 'letsencrypt.log.1'), 'old log\n');
  await symlink('/etc/shadow', join(logs, 'letsencrypt.log.2'));
  await chownTree(logs, PANEL.uid, PANEL.gid);
  const logReport = await giveBack({ dir: logs, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'plain' });
  assert.equal(logReport.givenBack, { directories: 1, files: 2, links: 0 });
  assert.equal(logReport.quarantined.map((e) => [e.path, e.to, e.type, e.target]), [[join(logs, 'letsencrypt.log.2'), join(ctx.q, RUN, logs.slice(1), 'letsencrypt.log.2'), 'link', '/etc/shadow']]);
  assert.equal(Object.values(await readTree(logs)).map((e) => [e.type, e.uid, e.mode]), [['file', 0, 0o644], ['file', 0, 0o644]]);
});

s('the quarantine on another file system: files are copied there, links, FIFOs and a hook directory\'s entries never are (removed, and said so)', async (ctx) => {
  if (!isRoot) return console.warn('needs root: skipped');
  const c = ctx.d.configDir;
  await certbotConfigTree(ctx.d, ctx.base);
  const exdev = Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
  const fs: GiveBackFs = { ...nodeGiveBackFs, rename: async (a, b) => (b.startsWith(`${ctx.q}/`) && !a.startsWith(`${ctx.q}/`) ? Promise.reject(exdev) : nodeGiveBackFs.rename(a, b)) };
  const report = await giveBack({ dir: c, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config', fs });
  const q = (rel: string) => join(ctx.q, RUN, c.slice(1), rel);
  assert.equal(byPath(report).map((e) => [e.path.slice(c.length + 1), e.to, e.type, /removed, not moved: the quarantine is on another file system|the empty directory was removed/.test(e.reason)]), [
    ['archive/y', null, 'link', true],
    ['cli.ini', q('cli.ini'), 'file', false],
    ['live/fifo.example.org/fullchain.pem', null, 'fifo', true],
    ['live/x/privkey.pem', null, 'link', true],
    ['renewal-hooks/deploy/sub', null, 'directory', true],
    ['renewal-hooks/deploy/sub/x', q('renewal-hooks/deploy/sub/x'), 'file', false],
    ['renewal-hooks/post/evil', q('renewal-hooks/post/evil'), 'file', false],
    ['renewal-hooks/pre/planted', q('renewal-hooks/pre/planted'), 'file', false],
    ['renewal/hooked.example.org.conf', q('renewal/hooked.example.org.conf'), 'file', false],
    ['renewal/panelpath.example.org.conf', q('renewal/panelpath.example.org.conf'), 'file', false],
  ]);
  const after = await readTree(c);
  for (const gone of ['archive/y', 'live/x/privkey.pem', 'live/fifo.example.org/fullchain.pem', 'renewal-hooks/deploy/sub']) assert.is(after[gone], undefined, gone);
  assert.equal(Object.values(await readTree(ctx.q)).filter((e) => e.type !== 'dir' && e.type !== 'file'), [], 'no link or FIFO crossed');
  assert.is(await text(q('renewal-hooks/deploy/sub/x')), '#!/bin/sh\n');
});

s('not the panel\'s but where root\'s certbot runs or obeys it: a root program hard-linked in as a hook, a hook the panel\'s group can write, a configuration anyone can write go to quarantine; elsewhere such files stay', async (ctx) => {
  if (!isRoot) return console.warn('needs root: skipped');
  const c = ctx.d.configDir;
  for (const dir of ['renewal-hooks/pre', 'renewal-hooks/post', 'renewal', 'keys']) await mkdir(join(c, dir), { recursive: true });
  await chownTree(c, PANEL.uid, PANEL.gid);
  const program = join(ctx.base, 'reboot');
  await writeFile(program, '#!/bin/sh\necho rebooting\n', { mode: 0o755 });
  await link(program, join(c, 'renewal-hooks/pre/reboot'));
  await link(program, join(c, 'keys/also-reboot'));
  await writeFile(join(c, 'renewal-hooks/post/group-hook'), '#!/bin/sh\n', { mode: 0o775 });
  await chown(join(c, 'renewal-hooks/post/group-hook'), 0, PANEL.gid);
  await chmod(join(c, 'renewal-hooks/post/group-hook'), 0o775);
  await writeFile(join(c, 'renewal/anyone.conf'), renewalConf(ctx.d, 'anyone'));
  await chmod(join(c, 'renewal/anyone.conf'), 0o666);
  await writeFile(join(ctx.d.webroot, 'index.html'), '<html>');
  await chown(join(ctx.d.webroot, 'index.html'), 0, PANEL.gid);
  await chmod(join(ctx.d.webroot, 'index.html'), 0o664);

  const report = await giveBack({ dir: c, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config' });
  assert.equal(byPath(report).map((e) => [e.path.slice(c.length + 1), e.type, e.reason]), [
    ['renewal-hooks/post/group-hook', 'file', "root's certbot would run it (a renewal hook of the panel's user cannot be told from the operator's); not the panel's (uid 0), but the panel's group can write it"],
    ['renewal-hooks/pre/reboot', 'file', "root's certbot would run it (a renewal hook of the panel's user cannot be told from the operator's); not the panel's (uid 0), but it is a hard link (3 names) the panel's user could have made"],
    ['renewal/anyone.conf', 'file', "root's certbot would read it; not the panel's (uid 0), but every user can write it"],
  ]);
  assert.is((await lstat(program)).nlink, 2, 'the program itself stays, and its name in keys/ (root\'s certbot does not run keys/)');
  assert.is((await lstat(join(c, 'keys/also-reboot'))).uid, 0);
  const web = await giveBack({ dir: ctx.d.webroot, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'webroot' });
  assert.equal([web.quarantined, web.notes], [[], [{ path: join(ctx.d.webroot, 'index.html'), note: "not the panel's (uid 0) but writable by the panel's group: left as it is" }]]);
});

s('FIFOs anywhere (a certificate, a renewal configuration, cli.ini, a hook, another user\'s) are never opened: the run finishes at once', async (ctx) => {
  if (!isRoot) return console.warn('needs root: skipped');
  const c = ctx.d.configDir;
  for (const dir of ['live/a', 'renewal', 'renewal-hooks/pre', 'archive/a']) await mkdir(join(c, dir), { recursive: true });
  for (const f of ['live/a/fullchain.pem', 'renewal/a.conf', 'cli.ini', 'renewal-hooks/pre/x', 'archive/a/cert1.pem']) mkfifo(join(c, f));
  await chownTree(c, PANEL.uid, PANEL.gid);
  mkfifo(join(c, 'renewal/other.conf'));
  await chown(join(c, 'renewal/other.conf'), OTHER, OTHER);
  // an opened FIFO without a writer blocks for ever: the bound catches that, whatever the machine's load
  const report = await withTimeout('give-back over FIFOs', 10_000, () => giveBack({ dir: c, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config' }));
  assert.equal(report.quarantined.map((e) => e.type), ['fifo', 'fifo', 'fifo', 'fifo', 'fifo']);
  assert.ok((await lstat(join(c, 'renewal/other.conf'))).isFIFO(), 'another user\'s FIFO stays');
});

s('lock, then descend: every directory of the panel\'s is root\'s before it is read, and none is read that the panel\'s user could still change', async (ctx) => {
  if (!isRoot) return console.warn('needs root: skipped');
  const c = ctx.d.configDir;
  await certbotConfigTree(ctx.d, ctx.base);
  const panelDirs = new Set(Object.entries(await readTree(c)).filter(([, e]) => e.type === 'dir' && e.uid === PANEL.uid).map(([p]) => join(c, p)));
  panelDirs.add(c);
  const events: string[] = [];
  const paths = new WeakMap<object, string>();
  const fs: GiveBackFs = {
    ...nodeGiveBackFs,
    openDir: async (p) => {
      const h = await nodeGiveBackFs.openDir(p);
      paths.set(h, p);
      return h;
    },
    fchown: async (h, uid, gid) => {
      if (paths.has(h)) events.push(`chown ${paths.get(h)}`);
      return nodeGiveBackFs.fchown(h, uid, gid);
    },
    readdir: async (p) => {
      const st = await stat(p);
      events.push(`readdir ${p} ${st.uid}:${(st.mode & 0o022) === 0 ? 'locked' : 'open'}`);
      return nodeGiveBackFs.readdir(p);
    },
  };
  await giveBack({ dir: c, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config', fs });
  const reads = events.filter((e) => e.startsWith('readdir'));
  assert.ok(reads.length >= panelDirs.size - 1, 'every directory is read');
  for (const r of reads) assert.match(r, / 0:locked$/, `read only when root's alone: ${r}`);
  for (const dir of panelDirs) {
    if (dir.endsWith('/renewal-hooks/deploy/sub')) continue; // read in the quarantine, after its move
    const chowned = events.indexOf(`chown ${dir}`);
    const read = events.findIndex((e) => e.startsWith(`readdir ${dir} `));
    assert.ok(chowned >= 0 && chowned < read, `${dir}: chown at ${chowned}, read at ${read}`);
  }
  const left = Object.entries(await readTree(c)).filter(([, e]) => e.type === 'dir' && e.uid === PANEL.uid);
  assert.equal(left, []);
});

s('refused: a parent the panel can write, a link as the directory, a quarantine inside it or under a parent others can write; nothing there is nothing done', async (ctx) => {
  if (!isRoot) return console.warn('needs root: skipped');
  const refusal = (o: Partial<Parameters<typeof giveBack>[0]>) =>
    giveBack({ dir: ctx.d.configDir, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config', ...o }).then(() => 'given back', (e: Error) => e.message);
  assert.equal(await giveBack({ dir: ctx.d.configDir, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config' }).then((r) => [r.present, r.givenBack]), [false, { directories: 0, files: 0, links: 0 }]);
  await mkdir(join(ctx.base, 'panel-parent/le'), { recursive: true });
  await chown(join(ctx.base, 'panel-parent'), PANEL.uid, PANEL.gid);
  assert.match(await refusal({ dir: join(ctx.base, 'panel-parent/le') }), 'panel-parent is owned by uid 4242');
  await chmod(join(ctx.base, 'panel-parent'), 0o777);
  await chown(join(ctx.base, 'panel-parent'), 0, 0);
  assert.match(await refusal({ dir: join(ctx.base, 'panel-parent/le') }), 'panel-parent is writable by someone other than root');
  await mkdir(join(ctx.base, 'real'));
  await mkdir(join(ctx.base, 'etc'));
  await symlink(join(ctx.base, 'real'), ctx.d.configDir);
  assert.match(await refusal({}), 'it is a link');
  await rm(ctx.d.configDir);
  await mkdir(ctx.d.configDir);
  await chown(ctx.d.configDir, PANEL.uid, PANEL.gid);
  assert.match(await refusal({ quarantine: join(ctx.d.configDir, 'q') }), 'is owned by uid 4242');
  await chown(ctx.d.configDir, 0, 0);
  assert.match(await refusal({ quarantine: join(ctx.d.configDir, 'q') }), 'overlaps');
  assert.match(await refusal({ quarantine: join(ctx.base, 'panel-parent/q') }), 'writable by someone other than root');
  assert.match(await refusal({ run: '../escape' }), 'is not a name for a quarantine run');
  assert.equal((await lstat(ctx.d.configDir)).uid, 0);
});

s.run();
