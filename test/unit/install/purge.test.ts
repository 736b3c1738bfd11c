// `uninstall --purge` removes exactly what install created (its record), and on a box installed
// before the record, the panel's directories its user owns and the programs beside their markers.
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openInstallation, TOOLS, type Runner } from '../../../lib/install/installation.ts';
import type { CommandOptions } from '../../../lib/install/options.ts';
import { purge } from '../../../lib/install/purge.ts';

const s = suite<{ dir: string }>('uninstall --purge', { dir: '' });
s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-purge-'));
});
s.after.each((ctx) => rm(ctx.dir, { recursive: true, force: true }));

/** An installation under `dir` whose users do not exist (getent answers 2): nothing is killed or deleted but files. */
function installation(dir: string) {
  const calls: string[] = [];
  const runner: Runner = async (binary, args) => {
    calls.push([binary, ...args].join(' '));
    return { stdout: '', stderr: '', exitCode: binary.endsWith('getent') ? 2 : 0 };
  };
  const options: CommandOptions = {
    prefix: dir, json: true, user: 'relay-panel', harden: false, packages: false, downloads: true,
    system: { binaries: { chisel: join(dir, 'usr/local/bin/chisel'), authelia: join(dir, 'usr/local/bin/authelia') } },
    release: dir, node: process.execPath, healthTimeoutMs: 0, purge: true,
  };
  return { calls, inst: openInstallation(options, runner, TOOLS) };
}

const exists = (path: string) => stat(path).then(() => true, () => false);

s('with the record: its paths, users and packages go; an operator\'s program at the same place that install did not write stays', async ({ dir }) => {
  const { calls, inst } = installation(dir);
  const chisel = inst.system.binaries.chisel;
  const authelia = inst.system.binaries.authelia;
  await mkdir(join(dir, 'usr/local/bin'), { recursive: true });
  for (const f of [chisel, `${chisel}.release`, authelia]) await writeFile(f, 'x');
  await mkdir(inst.layout.configDir, { recursive: true });
  await writeFile(join(inst.layout.configDir, 'config.json'), '{}');
  const outcomes = await purge(inst, { paths: [inst.layout.configDir, chisel, `${chisel}.release`], users: [], packages: ['fail2ban'] });
  assert.equal([await exists(inst.layout.configDir), await exists(chisel), await exists(`${chisel}.release`)], [false, false, false]);
  assert.ok(await exists(authelia), 'not install\'s: it stays');
  assert.match(outcomes[0]!.message, `removed ${inst.layout.configDir}, ${chisel}, ${chisel}.release`);
  assert.ok(calls.includes('/usr/bin/apt-get purge -y fail2ban'), calls.join('\n'));
});

s('before the record: the programs beside their .release markers go, others stay', async ({ dir }) => {
  const { inst } = installation(dir);
  const { chisel, authelia } = inst.system.binaries;
  await mkdir(join(dir, 'usr/local/bin'), { recursive: true });
  for (const f of [chisel, `${chisel}.release`, authelia]) await writeFile(f, 'x');
  await purge(inst, undefined);
  assert.equal([await exists(chisel), await exists(`${chisel}.release`), await exists(authelia)], [false, false, true]);
});

s.run();
