import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { harden } from '../../../lib/install/steps/host.ts';
import { openInstallation, TOOLS, type Runner } from '../../../lib/install/installation.ts';
import type { CommandOptions } from '../../../lib/install/options.ts';

const s = suite<{ dir: string }>('harden', { dir: '' });
s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-harden-'));
});
s.after(async (ctx) => rm(ctx.dir, { recursive: true, force: true }));

function setup(dir: string, harden: boolean, present: { ufw: boolean; fail2ban: boolean }, fail2banRuns = true) {
  const calls: string[] = [];
  const runner: Runner = async (binary, args) => {
    calls.push([binary, ...args].join(' '));
    return { stdout: '', stderr: '', exitCode: fail2banRuns || args[0] !== 'ping' ? 0 : 255 };
  };
  const options: CommandOptions = {
    prefix: dir, json: true, user: 'relay-panel', harden, packages: false, downloads: false,
    system: { ports: { ipPanel: 9393 } }, release: dir, node: process.execPath, healthTimeoutMs: 0, purge: false,
  };
  const tools = { ...TOOLS, ufw: present.ufw ? join(dir, 'ufw') : join(dir, 'absent-ufw'), fail2ban: present.fail2ban ? join(dir, 'fail2ban-client') : join(dir, 'absent-f2b') };
  return { calls, inst: openInstallation(options, runner, tools) };
}

s('ufw opens ssh, http, https and the IP-panel port, then enables; fail2ban gets a jail once', async ({ dir }) => {
  // the jail file is root's
  if (process.getuid?.() !== 0) return console.warn('needs root: skipped');
  await writeFile(join(dir, 'ufw'), '');
  await writeFile(join(dir, 'fail2ban-client'), '');
  const { calls, inst } = setup(dir, true, { ufw: true, fail2ban: true });
  const first = await harden(inst);
  assert.is(first.status, 'done');
  assert.equal(calls, [
    `${join(dir, 'ufw')} allow 22/tcp`, `${join(dir, 'ufw')} allow 80/tcp`, `${join(dir, 'ufw')} allow 443/tcp`, `${join(dir, 'ufw')} allow 9393/tcp`,
    `${join(dir, 'ufw')} --force enable`,
    // fail2ban as install found it, for uninstall to put back
    '/usr/bin/systemctl is-enabled fail2ban', '/usr/bin/systemctl is-active fail2ban',
    '/usr/bin/systemctl restart fail2ban', `${join(dir, 'fail2ban-client')} ping`,
  ]);
  // the runner answers nothing on stdout: neither enabled nor active before
  assert.equal(JSON.parse(await readFile(join(dir, 'opt/relay-panel/install-options.json'), 'utf8')).created.fail2ban, { enabled: false, active: false });
  // Debian 12 has no auth.log: the sshd jail reads the journal
  assert.match(await readFile(join(dir, 'etc/fail2ban/jail.d/relay-panel.conf'), 'utf8'), '[sshd]\nenabled = true\nbackend = systemd\n');
  calls.length = 0;
  await harden(inst);
  assert.not.ok(calls.includes('/usr/bin/systemctl restart fail2ban'), 'an unchanged jail needs no restart');
  assert.not.ok(calls.includes('/usr/bin/systemctl is-active fail2ban'), 'the state before the jail is recorded once');
});

s('a fail2ban that stops after its restart is a warning with its fix, not "guards ssh"', async ({ dir }) => {
  if (process.getuid?.() !== 0) return console.warn('needs root: skipped');
  await mkdir(join(dir, 'stops'), { recursive: true });
  await writeFile(join(dir, 'stops', 'fail2ban-client'), '');
  const { calls, inst } = setup(join(dir, 'stops'), true, { ufw: false, fail2ban: true }, false);
  const outcome = await harden(inst, 1);
  assert.is(outcome.status, 'warning');
  assert.match(outcome.message, 'fail2ban does not run');
  assert.match(String(outcome.fix), 'journalctl -u fail2ban');
  assert.is(calls.filter((c) => c.endsWith(' ping')).length, 20);
});

s('without ufw or fail2ban nothing runs and the missing fail2ban is a warning with its fix', async ({ dir }) => {
  const { calls, inst } = setup(join(dir, 'bare'), true, { ufw: false, fail2ban: false });
  const outcome = await harden(inst);
  assert.is(outcome.status, 'warning');
  assert.match(String(outcome.fix), 'apt-get install fail2ban');
  assert.equal(calls, []);
});

s('--no-harden skips it', async ({ dir }) => {
  const { calls, inst } = setup(dir, false, { ufw: true, fail2ban: true });
  assert.is((await harden(inst)).status, 'skipped');
  assert.equal(calls, []);
});

s.run();
