// The give-back's text rules (lib/install/give-back-rules.ts) read certbot's files as certbot reads
// them (configobj for renewal configurations, ConfigArgParse with argparse's abbreviations for
// cli.ini, Python's splitlines), and rootOnlyPath (lib/install/root-only-path.ts) says who else
// could change a place a renewal configuration names.
import { chmod, chown, lchown, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cliIniHazard, isCertbotLiveLink, quarantineArea, renewalConfHazard, renewalConfPaths, safeMode, splitLines } from '../../../lib/install/give-back-rules.ts';
import { runName } from '../../../lib/install/give-back-quarantine.ts';
import { rootOnlyPath } from '../../../lib/install/root-only-path.ts';
import { dirsUnder, mkfifo, renewalConf } from './give-back-fixture.ts';

const s = suite('the give-back\'s rules');
const D = dirsUnder('/');

s('lines split as Python splits them: a \\r, \\v, \\f or \\u2028 starts a line too, a BOM is no part of the first key', () => {
  assert.equal(splitLines('\ufeffa = 1\rb = 2\vc\u2028d\r\ne'), ['a = 1', 'b = 2', 'c', 'd', 'e']);
});

s('a renewal configuration certbot wrote, without hooks, is kept; its places are every absolute path it names', () => {
  const conf = renewalConf(D, 'a.example.org');
  assert.is(renewalConfHazard(conf), null);
  assert.is(renewalConfHazard(renewalConf(D, 'a.example.org', 'pre_hook = \npost_hook = ""\n# renew_hook = x\n')), null, 'empty and commented hooks run nothing');
  assert.equal(renewalConfPaths(conf), ['/etc/letsencrypt/archive/a.example.org', '/etc/letsencrypt/live/a.example.org/cert.pem', '/etc/letsencrypt/live/a.example.org/privkey.pem',
    '/etc/letsencrypt/live/a.example.org/chain.pem', '/etc/letsencrypt/live/a.example.org/fullchain.pem', '/etc/letsencrypt', '/var/lib/letsencrypt', '/var/log/letsencrypt',
    '/var/www/html', '/var/www/html']);
  assert.equal(renewalConfPaths('x = "/a, b"\ny = /c,/d, e\n'), ['/a, b', '/c', '/d']);
});

s('a renewal configuration naming a hook in any spelling certbot restores, or a line this reader cannot place, is a reason', () => {
  for (const line of ['pre_hook = touch /root/pwned', 'post_hook = x', 'renew_hook = x', 'deploy_hook = x', 'pre-hook = x', 'manual_auth_hook = /tmp/x',
    'manual_cleanup_hook = x', '"pre_hook" = x', "'post_hook' = x", 'PRE_HOOK = x', '  pre_hook=x']) {
    assert.match(String(renewalConfHazard(renewalConf(D, 'a', `${line}\n`))), 'names a hook', line);
  }
  assert.match(String(renewalConfHazard(renewalConf(D, 'a').replace('key_type = ecdsa', 'key_type = ecdsa\vpre_hook = touch /root/pwned'))), 'names a hook', 'a vertical tab starts a line for configobj');
  assert.match(String(renewalConfHazard(renewalConf(D, 'a').replace('key_type = ecdsa', 'key_type = ecdsa\u2028pre_hook = x'))), 'names a hook');
  assert.match(String(renewalConfHazard(renewalConf(D, 'a', "server2 = '''\npre_hook = x'''\n"))), 'is not one this check can read');
  assert.match(String(renewalConfHazard(renewalConf(D, 'a', 'this line has no value\n'))), 'is not one this check can read');
  assert.match(String(renewalConfHazard(renewalConf(D, 'a').replace('work_dir = /var/lib/letsencrypt', 'work_dir = tmp/w'))), 'work_dir is a relative path');
});

s('cli.ini: Debian\'s own is kept; a hook in any form ConfigArgParse and argparse accept, or any setting that is not plainly harmless, is a reason', () => {
  const debian = '# Because we are using logrotate for greater flexibility, disable the\n# internal certbot logrotation.\nmax-log-backups = 0\n# Adjust interactive output regarding automated renewal\npreconfigured-renewal = True\n';
  assert.is(cliIniHazard(debian), null);
  assert.is(cliIniHazard('[section]\nrsa-key-size 4096\nemail: ops@example.org\nagree-tos\nmax-log-backups = 0 # none\n; comment\n'), null);
  for (const line of ['deploy-hook = touch /root/pwned', 'deploy_hook: x', 'pre-hook touch /root/pwned', '--post-hook=x', 'pre-h = x', 'renew-hook = x', 'manual-auth-hook = x', 'p = x']) {
    assert.match(String(cliIniHazard(`max-log-backups = 0\n${line}\n`)), "root's certbot would run it", line);
  }
  for (const line of ['config-dir = /var/lib/relay-panel-acme', 'work-dir /tmp/w', 'config = /tmp/other.ini', 'server = https://evil.example/dir', 'authenticator = manual']) {
    assert.match(String(cliIniHazard(line)), 'which root\'s certbot would obey on every run', line);
  }
  assert.match(String(cliIniHazard('email = a@b.c,/etc/x')), 'its email has the value');
  assert.match(String(cliIniHazard('max-log-backups = 0\rpre-hook = x')), 'would run it', 'a carriage return starts a line');
});

s('certbot\'s live links, exactly: live/<name>/<kind>.pem to ../../archive/<name>/<kind><digits>.pem', () => {
  assert.ok(isCertbotLiveLink('live/a.example.org/privkey.pem', '../../archive/a.example.org/privkey12.pem'));
  assert.ok(isCertbotLiveLink('live/a.example.org/fullchain.pem', '../../archive/a.example.org/fullchain1.pem'));
  for (const [rel, target] of [
    ['live/a/privkey.pem', '/etc/shadow'], ['live/a/privkey.pem', '../../archive/b/privkey1.pem'], ['live/a/privkey.pem', '../../archive/a/cert1.pem'],
    ['live/a/privkey.pem', '../../archive/a/privkey.pem'], ['live/a/privkey.pem', '../../archive/a/../../../etc/privkey1.pem'], ['live/a/privkey.pem', '../../archive/a/privkey1.pem/'],
    ['live/a/README', '../../archive/a/cert1.pem'], ['archive/a/privkey1.pem', '../../archive/a/privkey1.pem'], ['live/a/b/privkey.pem', '../../archive/a/privkey1.pem'],
    ['live/a.b/cert.pem', '../../archive/aXb/cert1.pem'], ['live/a/key.pem', '../../archive/a/key1.pem'],
  ]) assert.not.ok(isCertbotLiveLink(rel!, target!), `${rel} -> ${target}`);
});

s('what goes to quarantine whatever it holds: renewal hooks in a config directory, checkpoints in a work directory', () => {
  assert.match(String(quarantineArea('certbot-config', 'renewal-hooks/pre/x')), "root's certbot would run it");
  assert.match(String(quarantineArea('certbot-work', 'backups')), 'restore files from it');
  assert.match(String(quarantineArea('certbot-work', 'temp_checkpoint/FILEPATHS')), 'restore files from it');
  assert.match(String(quarantineArea('certbot-work', 'IN_PROGRESS')), 'restore files from it');
  for (const [kind, rel] of [['certbot-config', 'renewal-hooks/pre'], ['certbot-config', 'renewal-hooks/pre/a/b'], ['certbot-config', 'renewal-hooks/other/x'], ['plain', 'renewal-hooks/pre/x'], ['certbot-work', 'backupsx'], ['certbot-config', 'backups']] as const) {
    assert.is(quarantineArea(kind, rel), null, `${kind} ${rel}`);
  }
  assert.is(safeMode(0o107777), 0o1755);
  assert.is(safeMode(0o106777), 0o755);
});

s('each run has its own directory in the quarantine, named by when it ran', () => {
  assert.is(runName(new Date('2025-03-04T05:06:07.890Z')), '20250304T050607Z');
});

s('rootOnlyPath: root\'s alone all the way (links followed, a sticky directory only with root\'s entry next), or why not', async () => {
  if (process.getuid?.() !== 0) return console.warn('needs root: skipped');
  const base = await mkdtemp(join(tmpdir(), 'relay-root-only-'));
  try {
    await chmod(base, 0o755);
    assert.equal(await rootOnlyPath('/etc/shadow'), { real: '/etc/shadow' });
    assert.equal(await rootOnlyPath(join(base, 'missing/more')), { real: join(base, 'missing/more') }, 'root would make it');
    assert.equal(await rootOnlyPath(join(base, 'missing'), { directory: true }), { reason: `${join(base, 'missing')} is missing` });
    assert.equal(await rootOnlyPath('relative/path'), { reason: 'relative/path is not an absolute path' });
    await mkdir(join(base, 'panel/sub'), { recursive: true });
    await chown(join(base, 'panel'), 4242, 4242);
    assert.equal(await rootOnlyPath(join(base, 'panel/sub/x')), { reason: `${join(base, 'panel')} is owned by uid 4242` });
    await symlink(join(base, 'panel'), join(base, 'root-link'));
    assert.equal(await rootOnlyPath(join(base, 'root-link/sub')), { reason: `${join(base, 'panel')} is owned by uid 4242` }, 'a root link leads into the panel\'s');
    await mkdir(join(base, 'ok/dir'), { recursive: true });
    await symlink('ok', join(base, 'rel-link'));
    assert.equal(await rootOnlyPath(join(base, 'rel-link/dir/../dir/file')), { real: join(base, 'ok/dir/file') });
    await symlink(join(base, 'ok'), join(base, 'panel-link'));
    await lchown(join(base, 'panel-link'), 4242, 4242);
    assert.equal(await rootOnlyPath(join(base, 'panel-link/dir')), { reason: `${join(base, 'panel-link')} is a link owned by uid 4242` });
    await mkdir(join(base, 'sticky/root'), { recursive: true });
    await chmod(join(base, 'sticky'), 0o1777);
    assert.equal(await rootOnlyPath(join(base, 'sticky/root/x')), { real: join(base, 'sticky/root/x') });
    assert.equal(await rootOnlyPath(join(base, 'sticky/anyone/x')), { reason: `${join(base, 'sticky')} lets every user create anyone in it` });
    assert.equal(await rootOnlyPath(join(base, 'sticky')), { reason: `${join(base, 'sticky')} is writable by someone other than root` });
    mkfifo(join(base, 'ok/fifo'));
    assert.equal(await rootOnlyPath(join(base, 'ok/fifo')), { reason: `${join(base, 'ok/fifo')} is a FIFO` });
    await writeFile(join(base, 'ok/mine'), 'x');
    await chown(join(base, 'ok/mine'), 4242, 4242);
    assert.equal(await rootOnlyPath(join(base, 'ok/mine')), { reason: `${join(base, 'ok/mine')} is writable by someone other than root` });
    await writeFile(join(base, 'ok/root-file'), 'x');
    assert.equal(await rootOnlyPath(join(base, 'ok/root-file/x')), { reason: `${join(base, 'ok/root-file')} is not a directory` });
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

s.run();
