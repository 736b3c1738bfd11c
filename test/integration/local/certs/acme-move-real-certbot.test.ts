// The move of an earlier release's lineages (lib/install/acme-move.ts) with the real certbot and
// pebble on loopback: the panel's certificate issued into an "old" configDir as the earlier release
// issued it (its deploy hook the root helper's launcher, here a recording stand-in), an operator's
// lineage beside it, the move, then certbot itself reads both directories and renews the moved
// lineage from the new one, as the panel's renewal service runs it.
import { chmod, mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { moveLegacyLineages } from '../../../../lib/install/acme-move.ts';
import type { SystemConfig } from '../../../../lib/system/config.ts';
import { run } from '../../../../lib/system/common/exec.ts';
import { certbotDirArgs, createHostCerts } from '../../../../lib/system/certs/host.ts';
import { renewCommand } from '../../../../lib/system/certs/renew-units.ts';
import type { RootActions } from '../../../../lib/system/root/root-actions.ts';
import { parseCertbotCertificates } from '../../../../lib/system/certs/certbot-output.ts';
import { timed } from '../../../helpers/timeout.ts';
import { startInfra, TEST_DOMAIN, type Infra } from '../../../infra/harness.ts';

const s = suite("moving the panel's lineages with the real certbot against pebble");
let infra: Infra;
let oldConfig: SystemConfig;
let newConfig: SystemConfig;
let hookLog = '';
const PANEL = `panel.${TEST_DOMAIN}`;
const OPERATOR = `other.${TEST_DOMAIN}`;

/** Only setupAutoRenew's timer request reaches root here, and there is no systemd to ask. */
const noRoot = { controlUnit: async () => undefined } as unknown as RootActions;

const certbot = (config: SystemConfig, args: string[]) =>
  run(config.binaries.certbot, args, { timeoutMs: 60_000, env: { ...process.env, REQUESTS_CA_BUNDLE: config.acme.caBundle! } });
const certificates = async (config: SystemConfig) => parseCertbotCertificates((await certbot(config, ['certificates', ...certbotDirArgs(config)])).stdout);
const hookCalls = async () => (await readFile(hookLog, 'utf8').catch(() => '')).split('\n').filter(Boolean);

s.before(async () => {
  infra = await startInfra();
  // the root helper's launcher, as certbot's deploy hook names it: here it records that it ran
  const launcher = join(infra.dir, 'opt', 'bin', 'relay-panel-root');
  hookLog = join(infra.dir, 'hook.log');
  await mkdir(join(infra.dir, 'opt', 'bin'), { recursive: true });
  await writeFile(launcher, `#!/bin/sh\necho "$*" >> ${hookLog}\n`);
  await chmod(launcher, 0o755);
  const nginxWebroot = infra.systemConfig().acme.webroot;
  // the earlier release's webroot is another path (a link to the one nginx serves), so the move must rewrite it
  const oldWebroot = join(infra.dir, 'old-webroot');
  await symlink(nginxWebroot, oldWebroot);
  const rootHelper = { socket: join(infra.dir, 'root.sock'), call: launcher };
  const dirs = (base: string, webroot: string) => ({ configDir: join(base, 'config'), workDir: join(base, 'work'), logsDir: join(base, 'logs'), webroot });
  oldConfig = infra.systemConfig({ rootHelper, acme: { ...infra.systemConfig().acme, ...dirs(join(infra.dir, 'etc-letsencrypt'), oldWebroot) } });
  newConfig = infra.systemConfig({ rootHelper, acme: { ...infra.systemConfig().acme, ...dirs(join(infra.dir, 'relay-panel-acme'), nginxWebroot) } });
});

s.after(async () => {
  await infra?.stop();
});

s('the panel\'s lineage moves, the operator\'s stays; certbot lists each where it is and renews the moved one from the new directory', timed(150_000, async () => {
  // the earlier release: the panel's certificate and global deploy hook in the old directory ...
  const panelCerts = createHostCerts(oldConfig, noRoot, Date.now);
  assert.equal((await panelCerts.issue(PANEL, `ops@${TEST_DOMAIN}`)).issued, true);
  await panelCerts.setupAutoRenew();
  // ... and the operator's own lineage there, with a deploy hook and a post hook of its own
  await certbot(oldConfig, ['certonly', '--webroot', '-w', oldConfig.acme.webroot, '-d', OPERATOR, '--cert-name', OPERATOR, '--agree-tos',
    '--non-interactive', '--no-eff-email', '--email', `root@${TEST_DOMAIN}`, '--server', oldConfig.acme.server, '--deploy-hook', 'true', ...certbotDirArgs(oldConfig)]);
  await writeFile(join(oldConfig.acme.configDir, 'renewal-hooks', 'post', 'operator-hook'), '#!/bin/sh\n', { mode: 0o755 });
  const operatorBefore = await readFile(join(oldConfig.acme.configDir, 'live', OPERATOR, 'fullchain.pem'), 'utf8');
  const panelBefore = await readFile(join(oldConfig.acme.configDir, 'live', PANEL, 'fullchain.pem'), 'utf8');
  assert.equal((await certificates(oldConfig)).map((l) => l.name).sort(), [OPERATOR, PANEL]);

  const report = await moveLegacyLineages({ from: oldConfig.acme, to: newConfig.acme });
  assert.equal(report.moved, [PANEL]);
  assert.equal(report.left.map((l) => [l.name, l.hooks]), [[OPERATOR, ['true']]]);
  assert.is(report.deployHook, 'moved');
  assert.is(report.accounts.length, 1, 'the account the lineage renews with');
  assert.equal(report.otherHooks, [join(oldConfig.acme.configDir, 'renewal-hooks', 'post', 'operator-hook')]);

  // certbot reads the new directory: the moved lineage, every path in the new directory
  const moved = await certificates(newConfig);
  assert.equal(moved.map((l) => [l.name, l.domains, l.certificatePath, l.privateKeyPath]),
    [[PANEL, [PANEL], join(newConfig.acme.configDir, 'live', PANEL, 'fullchain.pem'), join(newConfig.acme.configDir, 'live', PANEL, 'privkey.pem')]]);
  assert.is(await readFile(join(newConfig.acme.configDir, 'live', PANEL, 'fullchain.pem'), 'utf8'), panelBefore, 'the same certificate');
  const conf = await readFile(join(newConfig.acme.configDir, 'renewal', `${PANEL}.conf`), 'utf8');
  assert.not.match(conf, oldConfig.acme.configDir);
  assert.not.match(conf, oldConfig.acme.webroot);
  // and the old one: the operator's lineage only, untouched
  const left = await certificates(oldConfig);
  assert.equal(left.map((l) => [l.name, l.certificatePath]), [[OPERATOR, join(oldConfig.acme.configDir, 'live', OPERATOR, 'fullchain.pem')]]);
  assert.is(await readFile(join(oldConfig.acme.configDir, 'live', OPERATOR, 'fullchain.pem'), 'utf8'), operatorBefore);

  // the panel's renewal service's command, forced: challenges go to the new webroot (the old path is gone)
  await rm(oldConfig.acme.webroot);
  const callsBefore = (await hookCalls()).length;
  await certbot(newConfig, [...renewCommand(newConfig).slice(1), '--force-renewal']);
  assert.is(await readlink(join(newConfig.acme.configDir, 'live', PANEL, 'fullchain.pem')), `../../archive/${PANEL}/fullchain2.pem`);
  const renewed = await readFile(join(newConfig.acme.configDir, 'live', PANEL, 'fullchain.pem'), 'utf8');
  assert.is.not(renewed, panelBefore, 'pebble issued a new certificate');
  const calls = (await hookCalls()).slice(callsBefore);
  assert.ok(calls.length >= 1 && calls.every((c) => c === 'nginx-reload'), `the deploy hook asked the root helper for a reload: ${JSON.stringify(calls)}`);
  assert.is(await readFile(join(oldConfig.acme.configDir, 'live', OPERATOR, 'fullchain.pem'), 'utf8'), operatorBefore, 'the operator\'s lineage is not renewed by the panel');

  const again = await moveLegacyLineages({ from: oldConfig.acme, to: newConfig.acme });
  assert.equal([again.moved, again.left.map((l) => l.name)], [[], [OPERATOR]]);
}));

s.run();
