// `uninstall --purge` removes exactly what install created (its record); when that list is not
// complete (a box an earlier release installed), also the panel's directories its user owns, the
// admin certificate, the programs beside their markers and the panel's users. Packages go only when
// apt's simulation says nothing else goes with them.
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openInstallation, TOOLS, type Runner } from '../../../lib/install/installation.ts';
import type { Created } from '../../../lib/install/install-record.ts';
import type { CommandOptions } from '../../../lib/install/options.ts';
import { packagesDecision, purge, simulatedRemovals } from '../../../lib/install/purge.ts';
import type { ExecResult } from '../../../lib/system/common/exec.ts';

const s = suite<{ dir: string }>('uninstall --purge', { dir: '' });
s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-purge-'));
});
s.after.each((ctx) => rm(ctx.dir, { recursive: true, force: true }));

const SIMULATION_HEADER = 'NOTE: This is only a simulation!\nReading package lists...\nBuilding dependency tree...\nReading state information...\n';

interface Box {
  /** users getent knows, with the test's own uid (so the files the test makes are theirs) */
  users?: string[];
  /** what `apt-get -s purge …` answers */
  simulation?: Partial<ExecResult>;
}

/** An installation under `dir` whose runner is fake: nothing is killed or deleted but files. */
function installation(dir: string, box: Box = {}) {
  const calls: string[] = [];
  const uid = process.getuid?.() ?? 1000;
  const runner: Runner = async (binary, args, ok = []) => {
    calls.push([binary, ...args].join(' '));
    if (binary.endsWith('getent')) {
      const known = args[0] === 'passwd' && box.users?.includes(args[1]!);
      return { stdout: known ? `${args[1]}:x:${uid}:${uid}::/:/usr/sbin/nologin\n` : '', stderr: '', exitCode: known ? 0 : 2 };
    }
    if (binary.endsWith('apt-get') && args[0] === '-s') {
      const r = { stdout: '', stderr: '', exitCode: 0, ...box.simulation };
      if (r.exitCode !== 0 && !ok.includes(r.exitCode)) throw new Error(`apt-get exited with status ${r.exitCode}`);
      return r;
    }
    return { stdout: '', stderr: '', exitCode: 0 };
  };
  const options: CommandOptions = {
    prefix: dir, json: true, user: 'relay-panel', harden: false, packages: false, downloads: true,
    system: { binaries: { chisel: join(dir, 'usr/local/bin/chisel'), authelia: join(dir, 'usr/local/bin/authelia') } },
    release: dir, node: process.execPath, healthTimeoutMs: 0, purge: true,
  };
  return { calls, inst: openInstallation(options, runner, TOOLS) };
}

const exists = (path: string) => stat(path).then(() => true, () => false);
const record = (over: Partial<Created>): Created => ({ complete: true, paths: [], users: [], packages: [], ...over });
const touch = async (file: string) => {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, 'x');
};

s('with a complete record: its paths, users and packages go; an operator\'s program at the same place that install did not write stays', async ({ dir }) => {
  const { calls, inst } = installation(dir, { simulation: { stdout: `${SIMULATION_HEADER}Purg fail2ban [1.0.1-1]\n` } });
  const chisel = inst.system.binaries.chisel;
  const authelia = inst.system.binaries.authelia;
  for (const f of [chisel, `${chisel}.release`, authelia, `${authelia}.release`, inst.layout.adminP12]) await touch(f);
  await mkdir(inst.layout.configDir, { recursive: true });
  await writeFile(join(inst.layout.configDir, 'config.json'), '{}');
  const outcomes = await purge(inst, record({ paths: [inst.layout.configDir, chisel, `${chisel}.release`], packages: ['fail2ban'] }));
  assert.equal([await exists(inst.layout.configDir), await exists(chisel), await exists(`${chisel}.release`)], [false, false, false]);
  // the list is all install made: a marker or a certificate it does not name is not install's
  assert.equal([await exists(authelia), await exists(`${authelia}.release`), await exists(inst.layout.adminP12)], [true, true, true]);
  assert.match(outcomes[0]!.message, `removed ${inst.layout.configDir}, ${chisel}, ${chisel}.release; nothing else`);
  assert.ok(calls.includes('/usr/bin/apt-get -s purge fail2ban'), calls.join('\n'));
  assert.ok(calls.includes('/usr/bin/apt-get purge -y fail2ban'), calls.join('\n'));
  assert.equal(outcomes[2], { status: 'changed', message: 'purged the packages install installed: fail2ban' });
});

s('with no record: the programs beside their .release markers go, others stay', async ({ dir }) => {
  const { inst } = installation(dir);
  const { chisel, authelia } = inst.system.binaries;
  for (const f of [chisel, `${chisel}.release`, authelia]) await touch(f);
  await purge(inst, undefined);
  assert.equal([await exists(chisel), await exists(`${chisel}.release`), await exists(authelia)], [false, false, true]);
});

s('an incomplete record (an earlier release installed the box, an upgrade added the service users): its list and the rules for an older box', async ({ dir }) => {
  const users = ['relay-panel', 'relay-panel-chisel', 'relay-panel-authelia'];
  const { calls, inst } = installation(dir, { users });
  const { chisel, authelia } = inst.system.binaries;
  const { configDir, dataDir, adminP12 } = inst.layout;
  for (const f of [chisel, `${chisel}.release`, authelia, adminP12, join(configDir, 'config.json'), join(dataDir, 'state.json')]) await touch(f);
  const outcomes = await purge(inst, record({ complete: false, users: ['relay-panel-chisel', 'relay-panel-authelia'] }));
  // the panel's directories its user owns go (not emptied and left root's), the admin P12 and the downloaded chisel too
  assert.equal([await exists(configDir), await exists(dataDir), await exists(adminP12), await exists(chisel), await exists(`${chisel}.release`)], [false, false, false, false, false]);
  assert.ok(await exists(authelia), 'no marker beside it: the operator\'s');
  assert.match(outcomes[0]!.message, `removed ${configDir}, ${dataDir}, ${adminP12}, ${chisel}, ${chisel}.release (an earlier release installed this box`);
  assert.not.match(outcomes[0]!.message, 'gave back to root');
  // the panel's user is removed with the users the list names
  for (const u of users) assert.ok(calls.includes(`/usr/sbin/userdel ${u}`), `${u}\n${calls.join('\n')}`);
  assert.is(outcomes[1]!.message, 'removed users relay-panel-chisel, relay-panel-authelia, relay-panel');
});

s('a record from before `complete` is read as incomplete: the panel\'s user goes though the list names only the new ones', async ({ dir }) => {
  const { calls, inst } = installation(dir, { users: ['relay-panel', 'relay-panel-chisel'] });
  await purge(inst, { paths: [], users: ['relay-panel-chisel'], packages: [] } as unknown as Created);
  assert.ok(calls.includes('/usr/sbin/userdel relay-panel'), calls.join('\n'));
});

s('apt\'s simulation: the names its Purg and Remv lines give, without an architecture', () => {
  // `apt-get -s purge python3-acme` on Debian 12
  const out = `${SIMULATION_HEADER}The following packages will be REMOVED:\n  certbot* python3-acme* python3-certbot*\n0 upgraded, 0 newly installed, 3 to remove and 0 not upgraded.\n`
    + 'Purg certbot [2.1.0-4]\nPurg python3-certbot [2.1.0-4]\nPurg python3-acme [2.1.0-1]\n';
  assert.equal(simulatedRemovals(out), ['certbot', 'python3-certbot', 'python3-acme']);
  assert.equal(simulatedRemovals('Remv libssl3:amd64 [3.0.11-1]\nPurg openssl [3.0.11-1]\nPurg openssl [3.0.11-1]\n'), ['libssl3', 'openssl']);
  // a package no longer there: no line
  assert.equal(simulatedRemovals(`${SIMULATION_HEADER}Package 'fail2ban' is not installed, so not removed\n0 upgraded, 0 newly installed, 0 to remove and 0 not upgraded.\n`), []);
});

s('the decision: purge only when nothing outside the list would go', () => {
  assert.equal(packagesDecision(['nginx', 'certbot', 'openssl'], ['nginx', 'openssl']), { purge: true, going: ['nginx', 'openssl'], others: [] });
  assert.equal(packagesDecision(['openssl'], ['ca-certificates', 'openssl']), { purge: false, going: ['openssl'], others: ['ca-certificates'] });
  assert.equal(packagesDecision(['fail2ban'], []), { purge: false, going: [], others: [] });
});

s('packages whose removal takes others are kept, with what else would go and the way to do it', async ({ dir }) => {
  const stdout = `${SIMULATION_HEADER}Purg ca-certificates [20230311]\nPurg libnginx-mod-stream [1.22.1-9]\nPurg nginx [1.22.1-9]\nPurg openssl [3.0.11-1~deb12u2]\n`;
  const { calls, inst } = installation(dir, { simulation: { stdout } });
  const outcomes = await purge(inst, record({ packages: ['nginx', 'certbot', 'openssl'] }));
  assert.not.ok(calls.some((c) => c.includes('purge -y')), calls.join('\n'));
  assert.equal(outcomes[2], {
    status: 'warning',
    message: 'kept the packages install installed (nginx, certbot, openssl): purging them would also remove ca-certificates, libnginx-mod-stream, which install did not install',
    fix: 'if nothing else of yours needs them: apt-get purge nginx certbot openssl (apt-get -s purge nginx certbot openssl shows what it would take)',
  });
});

s('a simulation that fails purges nothing and says why; packages already gone are nothing to purge', async ({ dir }) => {
  const failing = installation(dir, { simulation: { exitCode: 100, stderr: 'Reading package lists...\nE: Unable to locate package fail2ban\n' } });
  const [, , kept] = await purge(failing.inst, record({ packages: ['fail2ban'] }));
  assert.is(kept!.status, 'warning');
  assert.match(kept!.message, 'kept the packages install installed (fail2ban): apt-get -s purge could not say what their removal would take (E: Unable to locate package fail2ban)');
  assert.not.ok(failing.calls.some((c) => c.includes('purge -y')));
  const gone = installation(dir, { simulation: { stdout: `${SIMULATION_HEADER}Package 'fail2ban' is not installed, so not removed\n` } });
  const [, , none] = await purge(gone.inst, record({ packages: ['fail2ban'] }));
  assert.equal(none, { status: 'done', message: 'the packages install installed (fail2ban) are no longer installed: nothing to purge' });
  assert.not.ok(gone.calls.some((c) => c.includes('purge -y')));
});

s.run();
