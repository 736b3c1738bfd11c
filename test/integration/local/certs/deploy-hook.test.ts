// certbot's global deploy hook (lib/system/certs/host.ts): through the root helper where there is
// one, the panel's own `nginx-reload` on a box without one, and kept as this release writes it by
// each start (reconcile.ts); the `nginx-reload` command's refusals (lib/nginx-reload-command.ts).
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHostCerts, deployHookPath, deployHookScript } from '../../../../lib/system/certs/host.ts';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import type { RootActions } from '../../../../lib/system/root/root-actions.ts';
import { runNginxReload } from '../../../../lib/nginx-reload-command.ts';
import { writeOnboardedConfig } from '../../../helpers/onboarded-config.ts';

const s = suite<{ dir: string }>('certbot\'s deploy hook', { dir: '' });
s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-deploy-hook-'));
});
s.after.each(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

const PANEL_RELOAD = ['/usr/bin/node', '/opt/relay panel/current/server.mjs', 'nginx-reload', '--config', '/etc/relay-panel/config.json'];
const enabled: string[] = [];
const root = { controlUnit: async (unit: string, op: string) => void enabled.push(`${op} ${unit}`) } as unknown as RootActions;

const configOf = (dir: string, helper: boolean): SystemConfig => systemConfig({
  driver: 'host',
  systemd: { runAs: null },
  acme: { configDir: join(dir, 'le') },
  ...(helper ? { rootHelper: { socket: '/run/relay-panel-root.sock', call: '/opt/relay-panel/bin/relay-panel-root' } } : {}),
});

s('without a root helper the hook runs the panel\'s nginx-reload, quoted; with one it asks the helper, whatever the panel names', async ({ dir }) => {
  const own = configOf(dir, false);
  await createHostCerts(own, root, Date.now, {}, PANEL_RELOAD).setupAutoRenew();
  assert.is(await readFile(deployHookPath(own), 'utf8'), deployHookScript("/usr/bin/node '/opt/relay panel/current/server.mjs' nginx-reload --config /etc/relay-panel/config.json"));
  assert.is((await stat(deployHookPath(own))).mode & 0o777, 0o755);
  const helped = configOf(join(dir, 'helped'), true);
  await createHostCerts(helped, root, Date.now, {}, PANEL_RELOAD).setupAutoRenew();
  assert.is(await readFile(deployHookPath(helped), 'utf8'), deployHookScript('/opt/relay-panel/bin/relay-panel-root nginx-reload'));
});

s('a start rewrites an earlier release\'s hook (systemctl reload nginx) to the panel\'s, once, and makes none where onboarding wrote none', async ({ dir }) => {
  const config = configOf(dir, false);
  const certs = createHostCerts(config, root, Date.now, {}, PANEL_RELOAD);
  enabled.length = 0;
  assert.is(await certs.keepDeployHook!(), false);
  assert.is(await stat(deployHookPath(config)).catch(() => null), null, 'no hook is made');
  await mkdir(join(dir, 'le', 'renewal-hooks', 'deploy'), { recursive: true });
  await writeFile(deployHookPath(config), deployHookScript('/usr/bin/systemctl reload nginx.service'), { mode: 0o755 });
  assert.is(await certs.keepDeployHook!(), true);
  assert.match(await readFile(deployHookPath(config), 'utf8'), "\nexec /usr/bin/node '/opt/relay panel/current/server.mjs' nginx-reload --config /etc/relay-panel/config.json\n");
  assert.is(await certs.keepDeployHook!(), false, 'the second start finds it as it would write it');
  // a start from the sources names no launcher, so it leaves the bundle's hook alone
  assert.is(await createHostCerts(config, root, Date.now, {}).keepDeployHook!(), false);
  assert.match(await readFile(deployHookPath(config), 'utf8'), ' nginx-reload --config ');
  assert.equal(enabled, [], 'the renewal timer is not touched');
});

s('nginx-reload refuses a configuration with a root helper, the sandbox, one missing or invalid, one another user owns or may write, and a missing --config', async ({ dir }) => {
  const helped = await writeOnboardedConfig(dir, { file: 'helped.json', system: { driver: 'host', rootHelper: { socket: '/run/relay-panel-root.sock', call: '/opt/relay-panel/bin/relay-panel-root' } } });
  const sandbox = await writeOnboardedConfig(dir, { file: 'sandbox.json', system: { driver: 'sandbox' } });
  const errors: string[] = [];
  const error = console.error;
  console.error = (line: string) => void errors.push(line);
  try {
    assert.is(await runNginxReload(['--config', helped]), 1);
    assert.match(errors.at(-1)!, 'names a root helper: reload through it (/opt/relay-panel/bin/relay-panel-root nginx-reload)');
    assert.is(await runNginxReload(['--config', sandbox]), 1);
    assert.match(errors.at(-1)!, 'names the sandbox');
    assert.is(await runNginxReload([]), 2);
    const missing = join(dir, 'none.json');
    assert.is(await runNginxReload(['--config', missing]), 1);
    assert.match(errors.at(-1)!, process.geteuid?.() === 0 ? `${missing} is missing` : `${missing} does not exist`);
    const invalid = join(dir, 'invalid.json');
    await writeFile(invalid, JSON.stringify({ ip: 1 }), { mode: 0o600 });
    assert.is(await runNginxReload(['--config', invalid]), 1);
    assert.match(errors.at(-1)!, `${invalid} is invalid`);
    if (process.geteuid?.() === 0) {
      const theirs = await writeOnboardedConfig(dir, { file: 'theirs.json', system: { driver: 'host' } });
      await chown(theirs, 65534, 65534);
      assert.is(await runNginxReload(['--config', theirs]), 1);
      assert.match(errors.at(-1)!, 'is writable by someone other than root');
      // root's own file, but anyone may write it, or replace it in its directory: it names the binaries root runs
      const open = await writeOnboardedConfig(dir, { file: 'open.json', system: { driver: 'host', binaries: { nginx: join(dir, 'not-nginx') } } });
      await chmod(open, 0o666);
      assert.is(await runNginxReload(['--config', open]), 1);
      assert.match(errors.at(-1)!, `${open} is writable by someone other than root`);
      await chmod(open, 0o600);
      await chmod(dir, 0o777);
      assert.is(await runNginxReload(['--config', open]), 1);
      assert.match(errors.at(-1)!, `${dir} is writable by someone other than root`);
      await chmod(dir, 0o700);
    }
  } finally {
    console.error = error;
  }
});

s.run();
