// The stream module on an upgraded box: install's and the upgrade's package steps apt-get it (the
// upgrade keeps going when apt-get cannot), --no-packages and --no-downloads run nothing of the
// kind, and the upgrade has nginx read the stream block its directories step wrote, or put back.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openInstallation, TOOLS, type Installation, type Runner } from '../../../lib/install/installation.ts';
import type { CommandOptions } from '../../../lib/install/options.ts';
import { packages, STREAM_MODULE, wantedPackages } from '../../../lib/install/steps/host.ts';
import { streamServers, upgradePackages, type UpgradeNginx } from '../../../lib/install/steps/upgrade-streams.ts';
import { ensureStreamBlock, streamBlockPath } from '../../../lib/install/stream-block.ts';
import { upgradeFiles } from '../../../lib/install/upgrade.ts';
import { restoreFiles, saveFiles } from '../../../lib/install/file-snapshot.ts';

const s = suite<{ dir: string }>('upgrade: the stream module and its block', { dir: '' });
s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-upgrade-streams-'));
});
s.after(async (ctx) => rm(ctx.dir, { recursive: true, force: true }));

const LOAD_MODULE = 'load_module modules/ngx_stream_module.so;\n';

/** A box under `dir` whose dpkg knows `installed`; apt-get fails when `aptFails`. Every program run is in `calls`. */
async function box(dir: string, o: { packages?: boolean; downloads?: boolean; installed?: string[]; aptFails?: boolean } = {}) {
  await mkdir(dir, { recursive: true });
  const calls: string[] = [];
  const runner: Runner = async (binary, args) => {
    calls.push([binary, ...args].join(' '));
    if (binary === TOOLS.aptGet && o.aptFails) throw new Error('/usr/bin/apt-get exited with 100: E: Could not get lock /var/lib/dpkg/lock-frontend\nmore');
    const known = binary === TOOLS.dpkgQuery && (o.installed ?? []).includes(args.at(-1)!);
    return { stdout: known ? 'install ok installed' : '', stderr: '', exitCode: known ? 0 : 1 };
  };
  const options: CommandOptions = {
    prefix: dir, json: true, user: 'relay-panel', harden: false, packages: o.packages ?? true, downloads: o.downloads ?? true,
    system: { nginx: { conf: join(dir, 'etc/nginx/nginx.conf'), sitesAvailable: join(dir, 'etc/nginx/sites-available'), sitesEnabled: join(dir, 'etc/nginx/sites-enabled') } },
    release: dir, node: process.execPath, healthTimeoutMs: 0, purge: false,
  };
  return { calls, inst: openInstallation(options, runner) };
}

const recordedPackages = async (inst: Installation): Promise<string[]> =>
  JSON.parse(await readFile(inst.layout.installRecord, 'utf8').catch(() => '{}')).created?.packages ?? [];

s('install\'s and the upgrade\'s package lists hold the stream module; a box without it gets it from both', async ({ dir }) => {
  const old = ['nginx', 'certbot', 'openssl'];
  const installing = await box(join(dir, 'install'), { installed: old });
  assert.ok(wantedPackages(installing.inst).includes(STREAM_MODULE));
  assert.is((await packages(installing.inst)).message, `installed ${STREAM_MODULE}`);
  assert.ok(installing.calls.includes(`${TOOLS.aptGet} install -y --no-install-recommends ${STREAM_MODULE}`), installing.calls.join('\n'));

  const upgrading = await box(join(dir, 'upgrade'), { installed: old });
  const { outcome, installed } = await upgradePackages(upgrading.inst);
  assert.equal([outcome.status, outcome.message, installed], ['changed', `installed ${STREAM_MODULE}`, [STREAM_MODULE]]);
  assert.equal(upgrading.calls.filter((c) => c.startsWith(TOOLS.aptGet)), [`${TOOLS.aptGet} update`, `${TOOLS.aptGet} install -y --no-install-recommends ${STREAM_MODULE}`]);
  assert.equal(await recordedPackages(upgrading.inst), [STREAM_MODULE], 'install\'s, for uninstall --purge');

  const current = await box(join(dir, 'current'), { installed: [...old, STREAM_MODULE] });
  assert.is((await upgradePackages(current.inst)).outcome.status, 'done');
  assert.not.ok(current.calls.some((c) => c.startsWith(TOOLS.aptGet)), 'nothing missing, no apt-get');
});

s('--no-packages (as an offline box records it, with --no-downloads): the upgrade runs no apt-get, no dpkg, nothing at all', async ({ dir }) => {
  const { calls, inst } = await box(join(dir, 'offline'), { packages: false, downloads: false });
  const { outcome, installed } = await upgradePackages(inst);
  assert.is(outcome.status, 'skipped');
  assert.match(outcome.message, STREAM_MODULE);
  assert.equal([calls, installed], [[], []]);
});

s('--no-downloads is about chisel and Authelia: the module still comes from the box\'s own apt sources, as at install', async ({ dir }) => {
  const { calls, inst } = await box(join(dir, 'no-downloads'), { downloads: false, installed: ['nginx', 'certbot', 'openssl'] });
  assert.is((await upgradePackages(inst)).outcome.status, 'changed');
  assert.ok(calls.every((c) => c.startsWith(TOOLS.aptGet) || c.startsWith(TOOLS.dpkgQuery)), calls.join('\n'));
});

s('apt-get failing (dpkg locked, no network) is a warning with its fix: the upgrade goes on, nothing is noted as installed', async ({ dir }) => {
  const { inst } = await box(join(dir, 'locked'), { installed: ['nginx', 'certbot', 'openssl'], aptFails: true });
  const { outcome, installed } = await upgradePackages(inst);
  assert.is(outcome.status, 'warning');
  assert.match(outcome.message, `apt-get could not install ${STREAM_MODULE}: /usr/bin/apt-get exited with 100: E: Could not get lock`);
  assert.not.match(outcome.message, 'more');
  assert.match(String(outcome.fix), `apt-get install ${STREAM_MODULE}, then ./relay-panel install`);
  assert.equal(installed, []);
  assert.equal(await recordedPackages(inst), []);
});

/** nginx as a list of what was asked of it. */
function fakeNginx(running = true, asked: string[] = []): UpgradeNginx & { asked: string[] } {
  return {
    asked,
    running: async () => running,
    test: async () => void asked.push('test'),
    reload: async () => void asked.push('reload'),
  };
}

s('the upgrade tests and reloads nginx after writing the block; a failed one puts the block back; unchanged, no reload', async ({ dir }) => {
  const { inst } = await box(join(dir, 'block'));
  const block = streamBlockPath(inst.system);
  assert.ok(upgradeFiles(inst).includes(block), 'a failed upgrade puts the block back as it was');
  const enabled = join(dir, 'block/etc/nginx/modules-enabled');
  await mkdir(enabled, { recursive: true });
  await writeFile(join(enabled, '50-mod-stream.conf'), LOAD_MODULE);

  // as the upgrade: the block saved before it starts (only it: the others are outside this prefix), the
  // directories step writes it, then the streams step
  const saved = await saveFiles([block]);
  const before = saved.find((f) => f.path === block);
  assert.equal((await ensureStreamBlock(inst.system)).loaded, true);
  const nginx = fakeNginx();
  const written = await streamServers(inst, before, nginx);
  assert.equal([written.status, nginx.asked], ['changed', ['test', 'reload']]);
  assert.match(written.message, `wrote ${block}: nginx tested and reloaded, the stream servers of ${join(dir, 'block/etc/nginx/relay-streams')} listen`);
  await restoreFiles(saved);
  assert.is(await readFile(block, 'utf8').catch(() => null), null, 'rolled back: no block');

  // the next upgrade, the block there already
  await ensureStreamBlock(inst.system);
  const again = fakeNginx();
  const kept = await streamServers(inst, (await saveFiles([block]))[0], again);
  assert.equal([kept.status, again.asked], ['done', []]);

  // the module went away: the directories step removed the block, which nginx must stop reading
  const snapshot = (await saveFiles([block]))[0];
  await rm(join(enabled, '50-mod-stream.conf'));
  assert.equal((await ensureStreamBlock(inst.system)).loaded, false);
  const removed = fakeNginx();
  assert.match((await streamServers(inst, snapshot, removed)).message, 'the stream module is gone');
  assert.equal(removed.asked, ['test', 'reload']);
});

s('a stopped nginx is not reloaded (it reads the block when it starts); no module, no block, nothing asked', async ({ dir }) => {
  const { inst } = await box(join(dir, 'stopped'));
  const enabled = join(dir, 'stopped/etc/nginx/modules-enabled');
  await mkdir(enabled, { recursive: true });
  const none = fakeNginx();
  const before = (await saveFiles([streamBlockPath(inst.system)]))[0];
  await ensureStreamBlock(inst.system);
  assert.equal([(await streamServers(inst, before, none)).message, none.asked], ['no stream block (nginx\'s stream module is not loaded)', []]);
  await writeFile(join(enabled, '50-mod-stream.conf'), LOAD_MODULE);
  await ensureStreamBlock(inst.system);
  const stopped = fakeNginx(false);
  assert.match((await streamServers(inst, before, stopped)).message, 'nginx is not running, it reads it when it starts');
  assert.equal(stopped.asked, []);
});

s.run();
