// The real sudo reads the generated rules: inside a private mount namespace /etc/sudoers.d is a
// temp directory holding only our file (the real one is never touched), and `sudo -l -U <user>
// <argv>` answers whether that exact command line is allowed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { privilegedCommands, renderSudoers } from '../../../lib/install/privileges.ts';
import { systemConfig } from '../../../lib/system/config.ts';

const USER = 'nobody';
// sudo -l answers only for programs that exist: the helper's launcher is a stand-in in a temp dir
const helperDir = mkdtempSync(join(tmpdir(), 'relay-helper-'));
const HELPER = join(helperDir, 'relay-panel-vhosts');
writeFileSync(HELPER, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
const config = systemConfig({ driver: 'host', nginx: { vhostHelper: HELPER } });
const s = suite<{ dir: string }>('sudo whitelist', { dir: '' });

const usable = process.getuid?.() === 0 && existsSync('/usr/bin/sudo') && existsSync('/usr/bin/unshare');

/** sudo's verdict on one command line for USER, with only our rules in /etc/sudoers.d. */
function allowed(dir: string, argv: string[]): boolean {
  const r = spawnSync('/usr/bin/unshare', ['--mount', '--', '/bin/sh', '-c', 'mount --bind "$1" /etc/sudoers.d && shift && exec /usr/bin/sudo -l -U "$0" "$@"',
    USER, dir, ...argv], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`sudo -l failed: ${r.stderr}`);
  return r.status === 0;
}

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-sudoers-'));
  await chmod(ctx.dir, 0o755);
  await writeFile(join(ctx.dir, 'relay-panel'), renderSudoers(USER, privilegedCommands(config)), { mode: 0o440 });
});
s.after(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
  await rm(helperDir, { recursive: true, force: true });
});

s('every listed command line is allowed, as generated', ({ dir }) => {
  if (!usable) return console.warn('needs root, sudo and unshare: skipped');
  for (const argv of privilegedCommands(config)) assert.ok(allowed(dir, argv), argv.join(' '));
});

s('the vhost helper\'s line is among them, exactly once', () => {
  assert.equal(privilegedCommands(config).filter((argv) => argv[0] === HELPER), [[HELPER, 'apply']]);
});

s('anything else is refused: other configs, extra or missing arguments, other units, stopping the panel, shells, certbot, other helper actions', ({ dir }) => {
  if (!usable) return console.warn('needs root, sudo and unshare: skipped');
  const refused = [
    ['/usr/sbin/nginx', '-c', '/tmp/evil.conf', '-t', '-q'],
    ['/usr/sbin/nginx', '-c', '/etc/nginx/nginx.conf', '-t', '-q', '-g', 'load_module /tmp/x.so;'],
    ['/usr/sbin/nginx', '-c', '/etc/nginx/nginx.conf', '-s', 'stop'],
    ['/usr/sbin/nginx', '-t'],
    ['/usr/bin/systemctl', 'stop', 'relay-panel'],
    ['/usr/bin/systemctl', 'restart', 'ssh'],
    ['/usr/bin/systemctl', 'restart', 'nginx', 'ssh'],
    ['/usr/bin/systemctl', 'edit', 'nginx'],
    ['/usr/bin/systemctl', 'enable', '--now', 'evil'],
    ['/usr/bin/certbot', 'certonly', '--deploy-hook', 'sh'],
    ['/bin/sh', '-c', 'id'],
    ['/usr/bin/id'],
    [HELPER],
    [HELPER, 'remove'],
    [HELPER, 'apply', 'extra'],
    [HELPER, '--helper-config', '/tmp/evil.json', 'apply'],
    ['/usr/bin/node', '/opt/relay-panel/current/server.mjs', 'vhosts', '--helper-config', '/tmp/evil.json', 'apply'],
  ];
  for (const argv of refused) assert.not.ok(allowed(dir, argv), argv.join(' '));
});

s.run();
