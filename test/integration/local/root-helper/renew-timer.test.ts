// Automatic renewal through the root helper, as the panel's user asks for it: setupAutoRenew and
// autoRenewStatus of the host certs adapter over the helper's socket, the helper with its own
// configuration and the fake systemctl (test/fakes/bin/systemctl records argv and keeps states).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createDispatcher } from '../../../../lib/root-helper/dispatch.ts';
import { startHelperServer } from '../../../../lib/root-helper/server.ts';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import { createHostCerts } from '../../../../lib/system/certs/host.ts';
import { rootCall, socketRootActions } from '../../../../lib/system/root/root-client.ts';

const FAKE_SYSTEMCTL = fileURLToPath(new URL('../../../fakes/bin/systemctl', import.meta.url));

interface Ctx { dir: string; socket: string; helper: SystemConfig; server: Server | null }
const s = suite<Ctx>("the panel's renewal timer through the root helper", { dir: '', socket: '', helper: systemConfig(), server: null });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-renew-timer-'));
  ctx.socket = join(ctx.dir, 'root.sock');
  process.env.FAKE_SYSTEMD_STATE = join(ctx.dir, 'systemd.json');
  process.env.FAKE_ARGV_LOG = join(ctx.dir, 'argv.log');
  // the helper's own root-owned configuration: the installed defaults for the timer
  ctx.helper = systemConfig({ driver: 'host', binaries: { nginx: '/bin/true', systemctl: FAKE_SYSTEMCTL }, nginx: { errorLog: join(ctx.dir, 'error.log'), reloadCheckMs: 0 } });
  ctx.server = await startHelperServer({
    dispatcher: createDispatcher(ctx.helper, { exact: [], prefix: [] }),
    listen: { path: ctx.socket }, idleMs: 0, log: () => undefined, onIdle: () => undefined,
  });
});
s.after.each(async (ctx) => {
  await new Promise((resolve) => ctx.server?.close(resolve));
  delete process.env.FAKE_SYSTEMD_STATE;
  delete process.env.FAKE_ARGV_LOG;
  await rm(ctx.dir, { recursive: true, force: true });
});

const ran = async (dir: string) => (await readFile(join(dir, 'argv.log'), 'utf8').catch(() => '')).trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l).argv as string[]).join(' '));

/** The panel's side: its configuration names the helper and its own ACME directory. */
function panelCerts(ctx: Ctx, renewTimer?: string) {
  const config = systemConfig({
    driver: 'host',
    acme: { configDir: join(ctx.dir, 'acme'), ...(renewTimer ? { renewTimer } : {}) },
    rootHelper: { socket: ctx.socket, call: '/opt/relay-panel/bin/relay-panel-root' },
  });
  return { config, certs: createHostCerts(config, socketRootActions(rootCall(ctx.socket, 10_000)), Date.now) };
}

s('setupAutoRenew: the hook in the panel\'s configDir asks the helper; the helper enables relay-panel-renew.timer (systemctl enable --now), never certbot.timer', async (ctx) => {
  const { config, certs } = panelCerts(ctx);
  assert.equal(await certs.autoRenewStatus(), { active: false, nextRun: null, lastRun: null });
  await certs.setupAutoRenew();
  const hook = await readFile(join(config.acme.configDir, 'renewal-hooks', 'deploy', 'relay-panel-reload-nginx'), 'utf8');
  assert.match(hook, '\nexec /opt/relay-panel/bin/relay-panel-root nginx-reload\n');
  const argv = await ran(ctx.dir);
  assert.ok(argv.includes('enable --now relay-panel-renew.timer'), argv.join('\n'));
  assert.not.ok(argv.some((a) => a.includes('certbot')), argv.join('\n'));
  const status = await certs.autoRenewStatus();
  assert.is(status.active, true);
  assert.ok(status.nextRun && Date.parse(status.nextRun) > Date.now(), String(status.nextRun));
  assert.is(status.lastRun, null);
  assert.ok(argv.length < (await ran(ctx.dir)).length);
  const asked = await ran(ctx.dir);
  assert.ok(asked.includes('is-active relay-panel-renew.timer'), asked.join('\n'));
  assert.ok(asked.includes('show relay-panel-renew.timer --timestamp=utc -p NextElapseUSecRealtime -p LastTriggerUSec'), asked.join('\n'));
});

s('the status reads the timer\'s last run', async (ctx) => {
  const { certs } = panelCerts(ctx);
  const last = Date.UTC(2026, 10, 28, 12, 3, 4);
  await writeFile(process.env.FAKE_SYSTEMD_STATE!, JSON.stringify({ 'relay-panel-renew.timer': { state: 'active', since: last, lastTrigger: last } }));
  const status = await certs.autoRenewStatus();
  assert.equal([status.active, status.lastRun], [true, new Date(last).toISOString()]);
});

s('which timer is the helper\'s to say: a panel whose configuration names another still gets the helper\'s', async (ctx) => {
  const { certs } = panelCerts(ctx, 'elsewhere.timer');
  await certs.setupAutoRenew();
  const argv = await ran(ctx.dir);
  assert.ok(argv.includes(`enable --now ${ctx.helper.acme.renewTimer}`));
  assert.is(ctx.helper.acme.renewTimer, 'relay-panel-renew.timer');
  assert.not.ok(argv.some((a) => a.includes('elsewhere')), argv.join('\n'));
});

s.run();
