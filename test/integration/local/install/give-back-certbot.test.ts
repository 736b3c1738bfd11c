// The give-back of an earlier release's whole certbot box (giveBackCertbot, lib/install/give-back-certbot.ts)
// checked by certbot itself: after it, `certbot certificates` (the real certbot 2.1, as root, the
// way Debian's certbot.timer would read the directory) lists the operator's lineage from what
// stayed, and nothing of what went to quarantine. And the order: a renewal configuration stays only
// when the directories it names were given back before it. Needs root and certbot.
import { spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { giveBack } from '../../../../lib/install/give-back.ts';
import { describeGiveBack, giveBackCertbot } from '../../../../lib/install/give-back-certbot.ts';
import { run } from '../../../../lib/system/common/exec.ts';
import { parseCertbotCertificates } from '../../../../lib/system/certs/certbot-output.ts';
import { certbotConfigTree, chownTree, dirsUnder, OPERATOR, PANEL, readTree, type Dirs } from '../../../unit/install/give-back-fixture.ts';

const CERTBOT = '/usr/bin/certbot';
const RUN = '20250101T120000Z';
const usable = process.getuid?.() === 0 && spawnSync(CERTBOT, ['--version']).status === 0;
interface Ctx { base: string; d: Dirs; q: string }
const s = suite<Ctx>('giving an earlier release\'s certbot box back to root, read by certbot', { base: '', d: dirsUnder('/nonexistent'), q: '' });

s.before.each(async (ctx) => {
  ctx.base = await mkdtemp(join(tmpdir(), 'relay-give-back-certbot-'));
  await chmod(ctx.base, 0o700);
  ctx.d = dirsUnder(ctx.base);
  ctx.q = join(ctx.base, 'quarantine');
});
s.after.each(async (ctx) => {
  await rm(ctx.base, { recursive: true, force: true });
});

/** The earlier release's box: /etc/letsencrypt, /var/lib/letsencrypt, /var/log/letsencrypt the panel's, /var/www/html root:<panel group> 2775. */
async function earlierBox({ base, d }: Ctx): Promise<void> {
  await certbotConfigTree(d, base);
  await mkdir(join(d.workDir, 'backups/1700000000.0'), { recursive: true });
  await writeFile(join(d.workDir, 'backups/1700000000.0/FILEPATHS'), '/etc/shadow\n');
  await chownTree(d.workDir, PANEL.uid, PANEL.gid);
  await mkdir(d.logsDir, { recursive: true });
  await writeFile(join(d.logsDir, 'letsencrypt.log'), 'log\n');
  await symlink('/etc/shadow', join(d.logsDir, 'letsencrypt.log.1'));
  await chownTree(d.logsDir, PANEL.uid, PANEL.gid);
  await mkdir(join(d.webroot, '.well-known/acme-challenge'), { recursive: true });
  await chownTree(join(d.webroot, '.well-known'), PANEL.uid, PANEL.gid);
  await chown(d.webroot, 0, PANEL.gid);
  await chmod(d.webroot, 0o2775);
}

async function certificates(ctx: Ctx) {
  const scratch = join(ctx.base, 'certbot-scratch');
  await mkdir(scratch, { recursive: true });
  const r = await run(CERTBOT, ['certificates', '--config-dir', ctx.d.configDir, '--work-dir', scratch, '--logs-dir', scratch], { timeoutMs: 60_000 });
  return { lineages: parseCertbotCertificates(r.stdout), output: r.stdout + r.stderr };
}

s('after the give-back, certbot lists the operator\'s lineage from what stayed, and none of what went to quarantine', async (ctx) => {
  if (!usable) return console.warn('needs root and certbot: skipped');
  await earlierBox(ctx);
  const reports = await giveBackCertbot({ dirs: ctx.d, panel: PANEL, quarantine: ctx.q, run: RUN });
  assert.equal(reports.map((r) => [r.dir, r.kind, r.present]), [
    [ctx.d.logsDir, 'plain', true], [ctx.d.workDir, 'certbot-work', true], [ctx.d.webroot, 'webroot', true], [ctx.d.configDir, 'certbot-config', true],
  ]);
  const config = reports[3]!;
  assert.equal(config.givenBack, { directories: 17, files: 12, links: 4 });
  assert.not.ok(config.quarantined.some((e) => e.path.endsWith(`${OPERATOR}.conf`)), 'the operator\'s configuration stays: every place it names is root\'s by now');

  const { lineages, output } = await certificates(ctx);
  const live = join(ctx.d.configDir, 'live', OPERATOR);
  assert.equal(lineages.map((l) => [l.name, l.domains, l.certificatePath, l.privateKeyPath]), [[OPERATOR, [OPERATOR], join(live, 'fullchain.pem'), join(live, 'privkey.pem')]]);
  assert.not.match(output, /hooked|panelpath|invalid|error/i);

  const line = describeGiveBack(reports);
  assert.match(line, `${ctx.d.logsDir}, ${ctx.d.workDir}, ${ctx.d.webroot}, ${ctx.d.configDir} given back to root (22 directories, 13 files, 4 links)`);
  assert.match(line, `11 entries quarantined for review: ${join(ctx.d.logsDir, 'letsencrypt.log.1')} -> ${join(ctx.q, RUN, ctx.d.logsDir.slice(1), 'letsencrypt.log.1')} (a link of the panel's user to /etc/shadow: root would follow it)`);
  assert.match(line, `${join(ctx.d.configDir, 'renewal-hooks/pre/planted')} -> ${join(ctx.q, RUN, ctx.d.configDir.slice(1), 'renewal-hooks/pre/planted')} (root's certbot would run it`);
  assert.match(line, `left as they were: ${join(ctx.d.configDir, 'other-user')} (owned by uid 5151`);
  assert.is(describeGiveBack(await giveBackCertbot({ dirs: { ...ctx.d, webroot: null }, panel: PANEL, quarantine: ctx.q, run: RUN })).split('; ')[0],
    `${ctx.d.logsDir}, ${ctx.d.workDir}, ${ctx.d.configDir} given back to root (0 directories, 0 files, 0 links)`);
});

s('the configuration directory given back before the work directory it names: the operator\'s lineage goes to quarantine (its work_dir is still the panel\'s), with why', async (ctx) => {
  if (!usable) return console.warn('needs root and certbot: skipped');
  await earlierBox(ctx);
  const report = await giveBack({ dir: ctx.d.configDir, panel: PANEL, quarantine: ctx.q, run: RUN, kind: 'certbot-config' });
  const conf = report.quarantined.find((e) => e.path.endsWith(`${OPERATOR}.conf`));
  assert.match(String(conf?.reason), `it names ${ctx.d.workDir}, and ${ctx.d.workDir} is owned by uid 4242: root's certbot would read or write there`);
  assert.equal((await certificates(ctx)).lineages, [], 'certbot finds no lineage to renew');
  assert.is((await readTree(ctx.d.configDir))[`renewal/${OPERATOR}.conf`], undefined);
});

s.run();
