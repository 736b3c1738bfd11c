// The move of an earlier release's lineages out of /etc/letsencrypt (lib/install/acme-move.ts) on
// trees laid out as certbot 2.1 lays them out (checked against the real certbot in
// test/integration/local/certs/acme-move-real-certbot.test.ts): which lineages are the panel's, what the
// new directory holds, what stays, and a run stopped halfway finishing on the next one.
import { chown, cp, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { latestCommonVersion, moveLegacyLineages, parseAcmeMoveOptions, type AcmeDirs } from '../../../lib/install/acme-move.ts';
import { isRootHelperReloadHook, renewalHooks, renewalSection, rewriteRenewalPaths } from '../../../lib/system/certs/renewal-conf.ts';
import { account, KINDS, lineage, renewalConf } from '../../helpers/certbot-tree.ts';

const LAUNCHER = '/opt/relay-panel/bin/relay-panel-root nginx-reload';
const OLD_DIRS = { configDir: '/etc/letsencrypt', workDir: '/var/lib/letsencrypt', logsDir: '/var/log/letsencrypt', webroot: '/var/www/html' };
const NEW_DIRS = { configDir: '/etc/relay-panel/letsencrypt', workDir: '/var/lib/relay-panel-acme', logsDir: '/var/log/relay-panel-acme', webroot: '/var/www/relay-panel-acme' };
const moves = (a: AcmeDirs, b: AcmeDirs) => (['configDir', 'workDir', 'logsDir', 'webroot'] as const).map((k) => [a[k], b[k]] as const);

/** Every entry under a directory: files with their text, links with their target. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const name of await readdir(join(dir, rel)).catch(() => [] as string[])) {
      const sub = rel ? `${rel}/${name}` : name;
      const st = await lstat(join(dir, sub));
      if (st.isSymbolicLink()) out[sub] = `-> ${await readlink(join(dir, sub))}`;
      else if (st.isDirectory()) await walk(sub);
      else out[sub] = await readFile(join(dir, sub), 'utf8');
    }
  };
  await walk('');
  return out;
}

interface Ctx { root: string; from: AcmeDirs; to: AcmeDirs }
const s = suite<Ctx>("moving the panel's lineages out of /etc/letsencrypt", { root: '', from: OLD_DIRS, to: NEW_DIRS });

s.before.each(async (ctx) => {
  ctx.root = await mkdtemp(join(tmpdir(), 'relay-acme-move-'));
  const at = (dirs: AcmeDirs) => Object.fromEntries(Object.entries(dirs).map(([k, v]) => [k, join(ctx.root, v)])) as unknown as AcmeDirs;
  ctx.from = at(OLD_DIRS);
  ctx.to = at(NEW_DIRS);
  await mkdir(ctx.from.configDir, { recursive: true });
  await mkdir(ctx.to.configDir, { recursive: true });
});
s.after.each(async (ctx) => {
  await rm(ctx.root, { recursive: true, force: true });
});

/** The earlier release's box: two of the panel's lineages, one of the operator's with a hook of its own, keys, hooks. */
async function earlierBox({ from }: Ctx): Promise<void> {
  await account(from.configDir, 'b9b4020030985ccaecd7c4d962960a42');
  await account(from.configDir, 'operator0000000000000000000000000');
  await lineage(from, 'panel.example.com', { hook: LAUNCHER, versions: 2 });
  await lineage(from, 'auth.example.com', { hook: LAUNCHER });
  await lineage(from, 'other.example.org', { hook: 'systemctl reload apache2', account: 'operator0000000000000000000000000', preHook: 'touch /tmp/x' });
  // a fifth privkey with no cert beside it is not a version (certbot's latest common version)
  await writeFile(join(from.configDir, 'archive', 'panel.example.com', 'privkey3.pem'), 'privkey 3 alone\n', { mode: 0o600 });
  await mkdir(join(from.configDir, 'keys'), { recursive: true });
  await writeFile(join(from.configDir, 'keys', '0000_key-certbot.pem'), 'privkey 1 of panel.example.com\n', { mode: 0o600 });
  await writeFile(join(from.configDir, 'keys', '0001_key-other.pem'), 'privkey 1 of other.example.org\n', { mode: 0o600 });
  for (const stage of ['pre', 'deploy', 'post']) await mkdir(join(from.configDir, 'renewal-hooks', stage), { recursive: true });
  await writeFile(join(from.configDir, 'renewal-hooks', 'deploy', 'relay-panel-reload-nginx'), `#!/bin/sh\nexec ${LAUNCHER}\n`, { mode: 0o755 });
  await writeFile(join(from.configDir, 'renewal-hooks', 'post', 'operator-mail'), '#!/bin/sh\n', { mode: 0o755 });
  await writeFile(join(from.configDir, 'cli.ini'), 'max-log-backups = 0\n');
}

s('the rewrite moves every path of the old directories, webroot lists and maps included; the rest stays as it was', () => {
  const text = renewalConf(OLD_DIRS, 'panel.example.com', { hook: LAUNCHER })
    + 'extra = /etc/letsencrypt-other/x\nquoted = "/etc/letsencrypt/live/a, b"\n# cert = /etc/letsencrypt/commented\n';
  const out = rewriteRenewalPaths(text, moves(OLD_DIRS, NEW_DIRS));
  assert.is(out, renewalConf(NEW_DIRS, 'panel.example.com', { hook: LAUNCHER })
    + 'extra = /etc/letsencrypt-other/x\nquoted = "/etc/relay-panel/letsencrypt/live/a, b"\n# cert = /etc/letsencrypt/commented\n');
  assert.match(out, 'webroot_path = /var/www/relay-panel-acme,\n');
  assert.match(out, 'panel.example.com = /var/www/relay-panel-acme\n');
  assert.match(out, 'server = https://acme-v02.api.letsencrypt.org/directory\n');
  assert.is(rewriteRenewalPaths(text, moves(OLD_DIRS, OLD_DIRS)), text);
});

s('reading a renewal configuration: sections, hooks, quoted values', () => {
  const text = renewalConf(OLD_DIRS, 'x.example.com', { hook: LAUNCHER, preHook: '"a, b"' });
  assert.is(renewalSection(text, '').archive_dir, '/etc/letsencrypt/archive/x.example.com');
  assert.is(renewalSection(text, 'renewalparams').renew_hook, LAUNCHER);
  assert.is(renewalSection(text, 'webroot_map')['x.example.com'], '/var/www/html');
  assert.equal(renewalHooks(text), ['a, b', LAUNCHER]);
});

s('the panel\'s deploy hook is the root helper\'s launcher asking for an nginx reload, and nothing else', () => {
  for (const yes of [LAUNCHER, '/usr/local/lib/relay panel/bin/relay-panel-root nginx-reload'.replace(/^(.*) nginx/, "'$1' nginx")]) assert.ok(isRootHelperReloadHook(yes), yes);
  for (const no of ['systemctl reload nginx', '/usr/sbin/nginx -s reload', 'relay-panel-root nginx-reload', '/x/relay-panel-rootx nginx-reload',
    `${LAUNCHER}; touch /tmp/x`, '/x/relay-panel-root nginx-reload extra', '/x/relay-panel-root nginx-test']) assert.not.ok(isRootHelperReloadHook(no), no);
});

s('certbot\'s latest common version: the highest number all four files have', () => {
  assert.is(latestCommonVersion(['cert1.pem', 'chain1.pem', 'fullchain1.pem', 'privkey1.pem', 'cert2.pem', 'chain2.pem', 'fullchain2.pem', 'privkey2.pem', 'privkey3.pem']), 2);
  assert.is(latestCommonVersion(['cert10.pem', 'chain10.pem', 'fullchain10.pem', 'privkey10.pem', 'cert9.pem']), 10);
  assert.is(latestCommonVersion(['cert1.pem', 'chain1.pem', 'fullchain1.pem']), null);
});

s('the panel\'s lineages move with their account and its deploy hook; the operator\'s lineage, account, keys, hooks and cli.ini stay', async (ctx) => {
  await earlierBox(ctx);
  const report = await moveLegacyLineages({ from: ctx.from, to: ctx.to });
  assert.equal(report.moved, ['auth.example.com', 'panel.example.com']);
  assert.equal(report.left, [{ name: 'other.example.org', reason: 'not the panel\'s: its renewal configuration names no deploy hook of the panel', hooks: ['touch /tmp/x', 'systemctl reload apache2'], intoPanelDirs: [] }]);
  assert.equal(report.accounts, ['acme-v02.api.letsencrypt.org/directory/b9b4020030985ccaecd7c4d962960a42']);
  assert.is(report.deployHook, 'moved');
  assert.equal(report.keysRemoved, [join(ctx.from.configDir, 'keys', '0000_key-certbot.pem')]);
  assert.equal(report.otherHooks, [join(ctx.from.configDir, 'renewal-hooks', 'post', 'operator-mail')]);

  const moved = await tree(ctx.to.configDir);
  const account = 'accounts/acme-v02.api.letsencrypt.org/directory/b9b4020030985ccaecd7c4d962960a42';
  assert.equal(Object.keys(moved).sort(), [
    `${account}/meta.json`, `${account}/private_key.json`, `${account}/regr.json`,
    'archive/auth.example.com/cert1.pem', 'archive/auth.example.com/chain1.pem', 'archive/auth.example.com/fullchain1.pem', 'archive/auth.example.com/privkey1.pem',
    ...['cert', 'chain', 'fullchain', 'privkey'].flatMap((k) => [1, 2].map((v) => `archive/panel.example.com/${k}${v}.pem`)), 'archive/panel.example.com/privkey3.pem',
    'live/auth.example.com/README', 'live/auth.example.com/cert.pem', 'live/auth.example.com/chain.pem', 'live/auth.example.com/fullchain.pem', 'live/auth.example.com/privkey.pem',
    'live/panel.example.com/README', 'live/panel.example.com/cert.pem', 'live/panel.example.com/chain.pem', 'live/panel.example.com/fullchain.pem', 'live/panel.example.com/privkey.pem',
    'renewal-hooks/deploy/relay-panel-reload-nginx',
    'renewal/auth.example.com.conf', 'renewal/panel.example.com.conf',
  ].sort());
  assert.is(moved['live/panel.example.com/privkey.pem'], '-> ../../archive/panel.example.com/privkey2.pem');
  assert.is(moved['live/auth.example.com/fullchain.pem'], '-> ../../archive/auth.example.com/fullchain1.pem');
  assert.is(moved['renewal/panel.example.com.conf'], renewalConf(ctx.to, 'panel.example.com', { hook: LAUNCHER }));
  assert.is(moved['archive/panel.example.com/privkey2.pem'], 'privkey 2 of panel.example.com\n');
  assert.is((await lstat(join(ctx.to.configDir, 'archive/panel.example.com/privkey2.pem'))).mode & 0o777, 0o600, 'keys stay private');
  assert.is((await lstat(join(ctx.to.configDir, `${account}/private_key.json`))).mode & 0o777, 0o400);
  assert.is((await lstat(join(ctx.to.configDir, 'renewal-hooks/deploy/relay-panel-reload-nginx'))).mode & 0o777, 0o755);
  for (const dir of ['archive', 'live', 'accounts']) assert.is((await lstat(join(ctx.to.configDir, dir))).mode & 0o777, 0o700, dir);

  const left = await tree(ctx.from.configDir);
  assert.equal(Object.keys(left).filter((p) => /panel\.example|auth\.example|relay-panel|0000_key/.test(p)), [], 'nothing of the panel\'s lineages is left');
  for (const kept of ['renewal/other.example.org.conf', 'live/other.example.org/cert.pem', 'archive/other.example.org/privkey1.pem', 'keys/0001_key-other.pem',
    'renewal-hooks/post/operator-mail', 'cli.ini', 'accounts/acme-v02.api.letsencrypt.org/directory/operator0000000000000000000000000/private_key.json',
    `${account}/private_key.json`]) {
    assert.ok(kept in left, kept);
  }

  const again = await moveLegacyLineages({ from: ctx.from, to: ctx.to });
  assert.equal([again.moved, again.left.map((l) => l.name), again.accounts, again.deployHook, again.keysRemoved], [[], ['other.example.org'], [], 'absent', []]);
  assert.equal(await tree(ctx.to.configDir), moved, 'a second run changes nothing');
});

s('stopped anywhere, the next run finishes without losing a lineage (and leaves a copy that was renewed since alone)', async (ctx) => {
  await earlierBox(ctx);
  const before = join(ctx.root, 'before');
  await cp(ctx.from.configDir, before, { recursive: true, verbatimSymlinks: true });
  await moveLegacyLineages({ from: ctx.from, to: ctx.to });
  const done = await tree(ctx.to.configDir);
  const restoreOld = async () => {
    await rm(ctx.from.configDir, { recursive: true });
    await cp(before, ctx.from.configDir, { recursive: true, verbatimSymlinks: true });
  };
  const name = 'panel.example.com';

  // stopped after the copy, before the old lineage went; meanwhile the panel's timer renewed the
  // copy (certbot's next version is one past the highest of any file: 4, beside the lone privkey3)
  await restoreOld();
  for (const k of KINDS) await writeFile(join(ctx.to.configDir, 'archive', name, `${k}4.pem`), `${k} 4 renewed\n`);
  for (const k of KINDS) {
    await rm(join(ctx.to.configDir, 'live', name, `${k}.pem`));
    await symlink(`../../archive/${name}/${k}4.pem`, join(ctx.to.configDir, 'live', name, `${k}.pem`));
  }
  const renewed = await tree(ctx.to.configDir);
  let report = await moveLegacyLineages({ from: ctx.from, to: ctx.to });
  assert.equal(report.moved, ['auth.example.com', name]);
  assert.equal(await tree(ctx.to.configDir), renewed, 'the renewed copy is not overwritten');
  assert.not.ok(Object.keys(await tree(ctx.from.configDir)).some((p) => p.includes(name)));

  // stopped after live and archive went, before the old configuration did
  await rm(ctx.to.configDir, { recursive: true });
  await mkdir(ctx.to.configDir);
  await restoreOld();
  await moveLegacyLineages({ from: ctx.from, to: ctx.to });
  await restoreOld();
  await rm(join(ctx.from.configDir, 'live', name), { recursive: true });
  await rm(join(ctx.from.configDir, 'archive', name), { recursive: true });
  report = await moveLegacyLineages({ from: ctx.from, to: ctx.to });
  assert.equal(report.moved, ['auth.example.com', name]);
  assert.not.ok((await readdir(join(ctx.from.configDir, 'renewal'))).includes(`${name}.conf`));
  assert.equal(await tree(ctx.to.configDir), done);

  // stopped halfway through the copy: archive files and a half-built live directory, no configuration
  await restoreOld();
  await rm(ctx.to.configDir, { recursive: true });
  await mkdir(join(ctx.to.configDir, 'archive', name), { recursive: true });
  await writeFile(join(ctx.to.configDir, 'archive', name, 'cert1.pem'), 'cert 1 of panel.example.com\n');
  await writeFile(join(ctx.to.configDir, 'archive', name, 'privkey2.pem'), 'half a key');
  await mkdir(join(ctx.to.configDir, 'live', `.${name}.relay-panel-move`), { recursive: true });
  report = await moveLegacyLineages({ from: ctx.from, to: ctx.to });
  assert.equal(report.moved, ['auth.example.com', name]);
  assert.equal(await tree(ctx.to.configDir), done);
});

s('a lineage of the same name already in the new directory is not overwritten: the old one stays, with why', async (ctx) => {
  await earlierBox(ctx);
  await lineage(ctx.to, 'panel.example.com', { hook: LAUNCHER });
  const ours = await tree(ctx.to.configDir);
  const report = await moveLegacyLineages({ from: ctx.from, to: ctx.to });
  assert.equal(report.moved, ['auth.example.com']);
  const left = report.left.find((l) => l.name === 'panel.example.com');
  assert.match(String(left?.reason), /is not the copy of .*a lineage of that name already in the new directory/);
  const after = await tree(ctx.to.configDir);
  for (const [path, text] of Object.entries(ours)) assert.is(after[path], text, path);
  assert.ok('renewal/panel.example.com.conf' in (await tree(ctx.from.configDir)));
});

s('a link or a stranger in a lineage\'s archive, or no account: that lineage stays, and no half copy is left in the new directory', async (ctx) => {
  await earlierBox(ctx);
  await symlink('/etc/shadow', join(ctx.from.configDir, 'archive', 'panel.example.com', 'cert9.pem'));
  await lineage(ctx.from, 'lost.example.com', { hook: LAUNCHER, account: 'nowhere' });
  const report = await moveLegacyLineages({ from: ctx.from, to: ctx.to });
  assert.equal(report.moved, ['auth.example.com']);
  assert.match(String(report.left.find((l) => l.name === 'panel.example.com')?.reason), /cert9\.pem is not one of certbot's archive files/);
  assert.match(String(report.left.find((l) => l.name === 'lost.example.com')?.reason), /its account nowhere is in neither accounts\/ directory/);
  const moved = Object.keys(await tree(ctx.to.configDir));
  assert.not.ok(moved.some((p) => p.includes('panel.example.com') || p.includes('lost.example.com')), moved.join('\n'));
});

s('the panel\'s deploy hook leaves the old directory even when it is not a file (root\'s certbot would run it); only a file is copied', async (ctx) => {
  await mkdir(join(ctx.from.configDir, 'renewal-hooks', 'deploy'), { recursive: true });
  await symlink('/usr/bin/id', join(ctx.from.configDir, 'renewal-hooks', 'deploy', 'relay-panel-reload-nginx'));
  const report = await moveLegacyLineages({ from: ctx.from, to: ctx.to });
  assert.is(report.deployHook, 'removed');
  assert.equal(await tree(ctx.to.configDir), {});
  assert.equal(await readdir(join(ctx.from.configDir, 'renewal-hooks', 'deploy')), []);
});

s('a lineage left behind that names the panel\'s new directories is pointed out: root\'s certbot would follow it there', async (ctx) => {
  await lineage(ctx.from, 'planted.example.org', { hook: 'true' });
  const file = join(ctx.from.configDir, 'renewal', 'planted.example.org.conf');
  await writeFile(file, (await readFile(file, 'utf8')).replace(/^archive_dir = .*$/m, `archive_dir = ${ctx.to.configDir}/archive/x`).replace(/^webroot_path = .*$/m, `webroot_path = /srv/www,${ctx.to.webroot},`));
  const [left] = (await moveLegacyLineages({ from: ctx.from, to: ctx.to })).left;
  assert.equal(left?.intoPanelDirs, [`${ctx.to.configDir}/archive/x`, ctx.to.webroot]);
});

s('hooks the caller names mark a lineage as the panel\'s too (exact text)', async (ctx) => {
  await account(ctx.from.configDir, 'b9b4020030985ccaecd7c4d962960a42');
  await lineage(ctx.from, 'old.example.com', { hook: '/usr/bin/systemctl reload nginx' });
  assert.equal((await moveLegacyLineages({ from: ctx.from, to: ctx.to, panelHooks: ['/usr/bin/systemctl reload nginx.service'] })).moved, []);
  assert.equal((await moveLegacyLineages({ from: ctx.from, to: ctx.to, panelHooks: ['/usr/bin/systemctl reload nginx'] })).moved, ['old.example.com']);
});

s('the options a child process gets are checked: absolute paths of both layouts, nothing else', () => {
  assert.equal(parseAcmeMoveOptions(JSON.parse(JSON.stringify({ from: OLD_DIRS, to: NEW_DIRS }))), { from: OLD_DIRS, to: NEW_DIRS });
  for (const bad of [{ from: OLD_DIRS }, { from: { ...OLD_DIRS, configDir: 'etc/letsencrypt' }, to: NEW_DIRS }, { from: { ...OLD_DIRS, webroot: '/var/www/../html' }, to: NEW_DIRS },
    { from: OLD_DIRS, to: NEW_DIRS, run: '/bin/sh' }, { from: OLD_DIRS, to: { ...NEW_DIRS, extra: '/x' } }]) {
    assert.throws(() => parseAcmeMoveOptions(bad), undefined, JSON.stringify(bad));
  }
});

s('only the owner of both directories may move: never root over the panel\'s files; nothing to do without an old directory or when both are one', async (ctx) => {
  await earlierBox(ctx);
  await chown(ctx.from.configDir, 65534, 65534);
  await moveLegacyLineages({ from: ctx.from, to: ctx.to }).then(() => assert.unreachable('moved as a stranger'), (e: Error) => {
    assert.match(e.message, `runs as the owner of ${ctx.from.configDir} (uid 65534), not as uid ${process.geteuid!()}`);
  });
  assert.equal(await tree(ctx.to.configDir), {});
  await chown(ctx.from.configDir, process.geteuid!(), process.getegid!());
  const empty = { moved: [], left: [], accounts: [], deployHook: 'absent', keysRemoved: [], otherHooks: [] };
  assert.equal(await moveLegacyLineages({ from: ctx.from, to: ctx.from }), empty);
  assert.equal(await moveLegacyLineages({ from: { ...ctx.from, configDir: join(ctx.root, 'none') }, to: ctx.to }), empty);
});

s.run();
