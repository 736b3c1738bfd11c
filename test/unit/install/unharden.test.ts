// Uninstall's `harden` step (lib/install/unharden.ts): the panel's jail goes and fail2ban goes back
// as install found it: stopped and disabled when install installed it, the recorded state when
// there is one, and without a record, running on its own jails or stopped when it has none.
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openInstallation, TOOLS, type Runner } from '../../../lib/install/installation.ts';
import type { Created } from '../../../lib/install/install-record.ts';
import type { CommandOptions } from '../../../lib/install/options.ts';
import { unharden } from '../../../lib/install/unharden.ts';

const s = suite<{ dir: string }>('uninstall: fail2ban and ufw as install found them', { dir: '' });
s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-unharden-'));
});
s.after.each((ctx) => rm(ctx.dir, { recursive: true, force: true }));

/** A hardened box under `dir` (the panel's jail is there); `answers`: whether fail2ban answers its ping. */
async function hardened(dir: string, answers: boolean, ufw = false) {
  const calls: string[] = [];
  const runner: Runner = async (binary, args) => {
    calls.push([binary, ...args].join(' '));
    return { stdout: '', stderr: '', exitCode: args[0] === 'ping' && !answers ? 255 : 0 };
  };
  const options: CommandOptions = {
    prefix: dir, json: true, user: 'relay-panel', harden: true, packages: false, downloads: false,
    system: { ports: { ipPanel: 9393 } }, release: dir, node: process.execPath, healthTimeoutMs: 0, purge: false,
  };
  const tools = { ...TOOLS, ufw: join(dir, ufw ? 'ufw' : 'absent-ufw'), fail2ban: join(dir, 'fail2ban-client') };
  const inst = openInstallation(options, runner, tools);
  await mkdir(dirname(inst.layout.fail2banJail), { recursive: true });
  await writeFile(inst.layout.fail2banJail, '# managed by relay-panel\n');
  if (ufw) await writeFile(tools.ufw, '');
  return { calls, inst, ping: `${tools.fail2ban} ping` };
}

const record = (over: Partial<Created>): Created => ({ complete: true, paths: [], users: [], packages: [], ...over });
const exists = (path: string) => stat(path).then(() => true, () => false);

s('not hardened (no jail of the panel\'s): nothing runs', async ({ dir }) => {
  const { calls, inst } = await hardened(dir, true);
  await rm(inst.layout.fail2banJail);
  assert.equal(await unharden(inst, record({ packages: ['fail2ban'] }), 1), { status: 'done', message: 'install did not harden this box (no fail2ban jail of the panel)' });
  assert.equal(calls, []);
});

s('install installed fail2ban: the jail goes, fail2ban is stopped and disabled, whatever state was recorded', async ({ dir }) => {
  const { calls, inst } = await hardened(dir, true);
  const outcome = await unharden(inst, record({ packages: ['nginx', 'fail2ban'], fail2ban: { enabled: true, active: true } }), 1);
  assert.not.ok(await exists(inst.layout.fail2banJail));
  assert.equal(calls, ['/usr/bin/systemctl disable --now fail2ban']);
  assert.equal(outcome, { status: 'changed', message: `removed ${inst.layout.fail2banJail}; fail2ban, which install installed, stopped and disabled (--purge removes the package)` });
});

s('the recorded state: found stopped and disabled, put back so', async ({ dir }) => {
  const { calls, inst } = await hardened(dir, true);
  const outcome = await unharden(inst, record({ fail2ban: { enabled: false, active: false } }), 1);
  assert.equal(calls, ['/usr/bin/systemctl disable fail2ban', '/usr/bin/systemctl stop fail2ban']);
  assert.match(outcome.message, '; fail2ban stopped and disabled, as install found it');
});

s('the recorded state: found enabled but stopped, stopped and left enabled', async ({ dir }) => {
  const { calls, inst } = await hardened(dir, true);
  const outcome = await unharden(inst, record({ fail2ban: { enabled: true, active: false } }), 1);
  assert.equal(calls, ['/usr/bin/systemctl stop fail2ban']);
  assert.match(outcome.message, '; fail2ban stopped, as install found it');
});

s('the recorded state: found running, restarted on its own jails; one that no longer answers is said so', async ({ dir }) => {
  const running = await hardened(join(dir, 'a'), true);
  const outcome = await unharden(running.inst, record({ fail2ban: { enabled: true, active: true } }), 1);
  assert.equal(running.calls, ['/usr/bin/systemctl try-restart fail2ban', running.ping]);
  assert.match(outcome.message, '; fail2ban runs with its own jails, as install found it');
  const silent = await hardened(join(dir, 'b'), false);
  const said = await unharden(silent.inst, record({ fail2ban: { enabled: true, active: true } }), 1);
  assert.is(silent.calls[0], '/usr/bin/systemctl try-restart fail2ban');
  assert.not.ok(silent.calls.some((c) => c.includes('disable')), 'it ran before install: not stopped');
  assert.match(said.message, '; fail2ban restarted without the jail, but does not answer: it did before install');
});

s('no record (a box installed before it): fail2ban restarts on its own jails and is left running when it answers', async ({ dir }) => {
  const { calls, inst, ping } = await hardened(dir, true);
  const outcome = await unharden(inst, undefined, 1);
  assert.equal(calls, ['/usr/bin/systemctl try-restart fail2ban', ping]);
  assert.match(outcome.message, '; fail2ban runs with its own jails');
});

s('no record and no jail that runs without the panel\'s: stopped, disabled and not left failed', async ({ dir }) => {
  const { calls, inst, ping } = await hardened(dir, false);
  // a record without fail2ban's state (an incomplete one) is the same
  const outcome = await unharden(inst, record({ complete: false, users: ['relay-panel-chisel'] }), 1);
  assert.equal(calls, [
    '/usr/bin/systemctl try-restart fail2ban', ...Array<string>(20).fill(ping),
    '/usr/bin/systemctl disable --now fail2ban', '/usr/bin/systemctl reset-failed fail2ban',
  ]);
  assert.match(outcome.message, 'fail2ban stopped and disabled: it has no jail that runs without the panel\'s');
});

s('ufw no longer allows the IP panel\'s port; ssh, http and https stay open', async ({ dir }) => {
  const { calls, inst } = await hardened(dir, true, true);
  const outcome = await unharden(inst, record({ packages: ['fail2ban'] }), 1);
  assert.equal(calls, ['/usr/bin/systemctl disable --now fail2ban', `${join(dir, 'ufw')} delete allow 9393/tcp`]);
  assert.match(outcome.message, '; ufw no longer allows 9393');
});

s.run();
