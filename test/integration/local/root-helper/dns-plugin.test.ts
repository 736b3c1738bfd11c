// The root helper's `dns-plugin` action (lib/root-helper/dns-plugin.ts): apt-get install or remove
// of one of certbot's nine DNS plugin packages, asked by the panel over the helper's socket. Any
// other name (another package, an option, a version, a pattern, a list) is refused and apt-get
// never runs. apt-get runs as a transient unit (systemd-run), outside the helper's own sandbox:
// the fake systemd-run beside the fake systemctl records its argv and runs the command; a node
// script plays apt-get and records its argv.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createDispatcher } from '../../../../lib/root-helper/dispatch.ts';
import { dnsPluginArgs } from '../../../../lib/root-helper/dns-plugin.ts';
import { startHelperServer } from '../../../../lib/root-helper/server.ts';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import { DNS_PLUGIN_PACKAGES } from '../../../../lib/system/packages/dns-plugin-packages.ts';
import { createHostPackages } from '../../../../lib/system/packages/host.ts';
import { rootCall, socketRootActions } from '../../../../lib/system/root/root-client.ts';
import { PROVIDERS } from '../../../../lib/certs/dns01/providers.ts';

const NONE = { exact: [], prefix: [] };
const PLUGIN = 'python3-certbot-dns-rfc2136';
const FAKE_SYSTEMCTL = fileURLToPath(new URL('../../../fakes/bin/systemctl', import.meta.url));

interface Ctx { dir: string; config: SystemConfig; server: Server | null; socket: string; log: string[] }
const s = suite<Ctx>('root helper dns-plugin action (apt-get of certbot\'s DNS plugins only)', { dir: '', config: systemConfig(), server: null, socket: '', log: [] });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-dns-plugin-'));
  ctx.socket = join(ctx.dir, 'root.sock');
  ctx.log = [];
  process.env.FAKE_ARGV_LOG = join(ctx.dir, 'systemd.log');
  const aptGet = join(ctx.dir, 'apt-get');
  await writeFile(aptGet, `#!${process.execPath}\nrequire('node:fs').appendFileSync(${JSON.stringify(join(ctx.dir, 'argv.log'))}, JSON.stringify({ argv: process.argv.slice(2), frontend: process.env.DEBIAN_FRONTEND }) + '\\n');\nif (process.argv.includes('python3-certbot-dns-gandi')) { console.error('E: Unable to locate package python3-certbot-dns-gandi'); process.exit(100); }\n`);
  await chmod(aptGet, 0o755);
  ctx.config = systemConfig({ driver: 'host', binaries: { aptGet, systemctl: FAKE_SYSTEMCTL }, nginx: { sitesAvailable: join(ctx.dir, 'available'), sitesEnabled: join(ctx.dir, 'enabled'), tlsDir: join(ctx.dir, 'tls') } });
  ctx.server = await startHelperServer({
    dispatcher: createDispatcher(ctx.config, NONE, () => undefined),
    listen: { path: ctx.socket }, idleMs: 0, log: (line) => ctx.log.push(line), onIdle: () => undefined,
  });
});
s.after.each(async (ctx) => {
  await new Promise((resolve) => ctx.server?.close(resolve));
  delete process.env.FAKE_ARGV_LOG;
  await rm(ctx.dir, { recursive: true, force: true });
});

const ran = async (dir: string) => (await readFile(join(dir, 'argv.log'), 'utf8').catch(() => '')).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { argv: string[]; frontend: string });

s('the allow list is exactly the providers\' plugin packages', () => {
  assert.equal([...DNS_PLUGIN_PACKAGES].sort(), Object.values(PROVIDERS).map((p) => p.package).sort());
});

s('the panel\'s packages adapter installs and removes a plugin through the helper: apt-get with the installer\'s arguments, noninteractive', async ({ dir, config, socket, log }) => {
  const packages = createHostPackages(config, socketRootActions(rootCall(socket, 10_000)));
  await packages.install(PLUGIN);
  await packages.remove(PLUGIN);
  assert.equal(await ran(dir), [
    { argv: ['install', '-y', '--no-install-recommends', PLUGIN], frontend: 'noninteractive' },
    { argv: ['remove', '-y', PLUGIN], frontend: 'noninteractive' },
  ]);
  const transient = (await readFile(join(dir, 'systemd.log'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l).argv as string[]);
  assert.equal(transient[0], ['--unit=relay-panel-dns-plugin', '--description=relay-panel: certbot DNS plugin package', '--quiet', '--wait', '--pipe', '--collect',
    '--service-type=exec', '--setenv=DEBIAN_FRONTEND=noninteractive', '--', config.binaries.aptGet, 'install', '-y', '--no-install-recommends', PLUGIN], 'a transient unit outside the helper\'s sandbox');
  assert.equal(log.filter((line) => line.includes('dns-plugin')).map((line) => line.slice(line.indexOf('dns-plugin'))), [`dns-plugin install ${PLUGIN}: ok`, `dns-plugin remove ${PLUGIN}: ok`], 'the helper ran them');
});

s('apt-get\'s failure is passed on with its words', async ({ config, socket }) => {
  const packages = createHostPackages(config, socketRootActions(rootCall(socket, 10_000)));
  const said = await packages.install('python3-certbot-dns-gandi').then(() => 'installed', (e: Error) => e.message);
  assert.match(said, 'apt-get could not install python3-certbot-dns-gandi');
  assert.match(said, 'E: Unable to locate package python3-certbot-dns-gandi');
});

s('attack: any other name is refused by the helper and apt-get never runs', async ({ dir, config }) => {
  const dispatcher = createDispatcher(config, NONE, () => undefined);
  const requests: unknown[] = [
    { action: 'dns-plugin', op: 'install', package: 'nginx' },
    { action: 'dns-plugin', op: 'install', package: 'python3-certbot-dns-evil' },
    { action: 'dns-plugin', op: 'install', package: `${PLUGIN} ` },
    { action: 'dns-plugin', op: 'install', package: `${PLUGIN}=2.1.0-1` },
    { action: 'dns-plugin', op: 'install', package: 'python3-certbot-dns-*' },
    { action: 'dns-plugin', op: 'install', package: `-oAPT::Update::Pre-Invoke::=/tmp/x` },
    { action: 'dns-plugin', op: 'install', package: [PLUGIN, 'netcat-openbsd'] },
    { action: 'dns-plugin', op: 'install', package: PLUGIN.toUpperCase() },
    { action: 'dns-plugin', op: 'purge', package: PLUGIN },
    { action: 'dns-plugin', op: 'install', package: PLUGIN, args: ['--allow-unauthenticated'] },
  ];
  for (const request of requests) {
    const { answer } = await dispatcher.answer(JSON.stringify(request));
    assert.is(answer.ok, false, JSON.stringify(request));
    assert.match((answer as { error: string }).error, /^Refused: /, JSON.stringify(request));
  }
  assert.equal(await ran(dir), []);
});

s('attack: the action file and the panel\'s adapter refuse another name themselves too', async ({ dir, config }) => {
  assert.throws(() => dnsPluginArgs('install', 'nginx'), /^Refused: "nginx" is not one of certbot's DNS plugin packages$/);
  assert.throws(() => dnsPluginArgs('remove', 'openssh-server'), /^Refused: /);
  assert.equal(dnsPluginArgs('install', PLUGIN), ['install', '-y', '--no-install-recommends', PLUGIN]);
  let asked = 0;
  const packages = createHostPackages(config, { dnsPlugin: async () => void asked++ });
  const said = await packages.install('fail2ban').then(() => 'installed', (e: Error) => e.message);
  assert.is(said, 'fail2ban is not one of certbot\'s DNS plugin packages: the root helper installs nothing else');
  assert.is(asked, 0);
  assert.equal(await ran(dir), []);
});

s.run();
