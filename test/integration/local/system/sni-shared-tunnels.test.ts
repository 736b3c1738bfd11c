// The per-name shared server against a real nginx of its own: one server for every route, each
// name served its own certificate from root's map (the client's SNI chooses), an unknown name the
// default server's, a renewal served after the next reload, a removed route's entry gone, a
// refused source never written (nginx would log a failed `data:` value, key included). The panel
// runs as root here (runAs null), so the map is made from certbot's files themselves, and certbot's
// deploy hook is the panel's own `nginx-reload` (no root helper).
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect, type PeerCertificate } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { helperVhostStore } from '../../../../lib/root-helper/apply.ts';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import { hostNginxControl } from '../../../../lib/system/proxy/host.ts';
import { deployHookCommand, deployHookScript } from '../../../../lib/system/certs/host.ts';
import { panelReloadArgv } from '../../../../lib/nginx-reload-names.ts';
import { writeOnboardedConfig } from '../../../helpers/onboarded-config.ts';
import { sniEntryPathsIn } from '../../../../lib/system/proxy/sni-map.ts';
import { nginxMasterPid } from '../../../../lib/system/proxy/nginx-proc.ts';
import type { CertPaths, VhostChange } from '../../../../lib/system/types.ts';
import { certPairs, installLivePair } from '../../../helpers/cert-pairs.ts';
import { ownNginxConf } from '../../../helpers/own-nginx-conf.ts';
import { freePorts } from '../../../infra/ports.ts';
import { startProcess, stopProcess, waitFor, type Managed } from '../../../infra/processes.ts';
import { fileURLToPath } from 'node:url';

const NGINX = '/usr/sbin/nginx';
const DOMAIN = 'sni.test';
const A = `a.${DOMAIN}`;
const B = `b.${DOMAIN}`;
const NONE = { exact: [], prefix: [] };

interface Ctx { dir: string; nginx: Managed | null; https: number; config: SystemConfig; pairs: Record<'a' | 'a2' | 'b' | 'fallback' | 'stranger', CertPaths> }
const s = suite<Ctx>('per-name shared server: each name its own certificate from root\'s map (real nginx)', {
  dir: '', nginx: null, https: 0, config: systemConfig(), pairs: {} as Ctx['pairs'],
});

const live = (ctx: Ctx, fqdn: string) => join(ctx.dir, 'le', 'live', fqdn);

const install = (ctx: Ctx, fqdn: string, pair: CertPaths) => installLivePair(live(ctx, fqdn), pair);

/** The certificate nginx serves to a client asking for `servername`. */
function servedCertificate(port: number, servername: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
      const certificate = socket.getPeerCertificate();
      socket.end();
      resolve(certificate);
    });
    socket.on('error', reject);
  });
}

/** A PEM file's first certificate's serial number, as the TLS client reports it. */
const certSerial = async (path: string) => new X509Certificate(await readFile(path)).serialNumber;
const servedName = async (port: number, servername: string) => String((await servedCertificate(port, servername)).subject?.CN);
const servedSerial = async (port: number, servername: string) => (await servedCertificate(port, servername)).serialNumber;

const store = (ctx: Ctx) => helperVhostStore(ctx.config, NONE);
const route = (fqdn: string, port: number): VhostChange => ({ op: 'put', spec: { kind: 'app', fqdn, port, shared: true }, enabled: true });
const sniDir = (ctx: Ctx) => join(ctx.config.nginx.tlsDir, 'sni');
const entryOf = (ctx: Ctx, fqdn: string, part = 0) => sniEntryPathsIn(join(sniDir(ctx), 'names'), fqdn)[part]!;

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-sni-'));
  for (const d of ['logs', 'tmp', 'sites-enabled', 'sites-available', 'self', 'pairs']) await mkdir(join(ctx.dir, d));
  ctx.pairs = await certPairs(join(ctx.dir, 'pairs'), { a: A, a2: A, b: B, fallback: 'relay-default', stranger: 'stranger.example' });
  await copyFile(ctx.pairs.fallback.fullchain, join(ctx.dir, 'self', 'default.pem'));
  await copyFile(ctx.pairs.fallback.privkey, join(ctx.dir, 'self', 'default.key'));
  await install(ctx, A, ctx.pairs.a);
  await install(ctx, B, ctx.pairs.b);
  const [http, https] = await freePorts(2);
  ctx.https = https!;
  await writeFile(join(ctx.dir, 'nginx.conf'), ownNginxConf());
  ctx.config = systemConfig({
    driver: 'host',
    systemd: { runAs: null },
    acme: { configDir: join(ctx.dir, 'le'), webroot: join(ctx.dir, 'acme') },
    ports: { http: http!, https: https! },
    nginx: {
      prefix: ctx.dir,
      conf: join(ctx.dir, 'nginx.conf'),
      sitesAvailable: join(ctx.dir, 'sites-available'),
      sitesEnabled: join(ctx.dir, 'sites-enabled'),
      selfSignedDir: join(ctx.dir, 'self'),
      tlsDir: join(ctx.dir, 'tls'),
      helpDir: join(ctx.dir, 'help'),
      errorLog: join(ctx.dir, 'logs', 'error.log'),
      pidFile: join(ctx.dir, 'logs', 'nginx.pid'),
      listenAddress: '127.0.0.1',
      trafficPort: null,
    },
    timeouts: { defaultMs: 20_000 },
  });
  ctx.nginx = startProcess('nginx', NGINX, ['-p', ctx.dir, '-c', 'nginx.conf', '-e', 'logs/error.log', '-g', 'daemon off;'], join(ctx.dir, 'nginx.out'));
  await waitFor('nginx', async () => (await nginxMasterPid(ctx.config.nginx.pidFile)) !== null, ctx.nginx);
  await store(ctx).apply([
    { op: 'put', spec: { kind: 'tunnels', fqdn: DOMAIN, sni: true }, enabled: true },
    route(A, 4101),
    route(B, 4102),
  ]);
});

s.after(async (ctx) => {
  if (ctx.nginx) await stopProcess(ctx.nginx);
  await rm(ctx.dir, { recursive: true, force: true });
});

s('each routed name is served its own certificate by the one server, an unknown name the fallback', async (ctx) => {
  assert.is(await servedName(ctx.https, A), A);
  assert.is(await servedName(ctx.https, B), B);
  assert.is(await servedName(ctx.https, `nobody.${DOMAIN}`), 'relay-default');
  const enabled = (await readdir(ctx.config.nginx.sitesEnabled)).filter((n) => n.startsWith('relay-'));
  assert.equal(enabled, [`relay-tunnels-${DOMAIN}.conf`], 'one server for both names');
});

s('the map is root\'s alone: a 0700 directory of 0600 entries', async (ctx) => {
  assert.is((await stat(sniDir(ctx))).mode & 0o777, 0o700);
  assert.is((await stat(join(sniDir(ctx), 'names'))).mode & 0o777, 0o700);
  assert.is((await stat(entryOf(ctx, A))).mode & 0o777, 0o600);
  assert.is((await stat(join(sniDir(ctx), 'fallback.0.conf'))).mode & 0o777, 0o600);
});

s('a renewed certificate is served after the next reload, which reads it again', async (ctx) => {
  const before = await servedSerial(ctx.https, A);
  await rm(live(ctx, A), { recursive: true });
  await install(ctx, A, ctx.pairs.a2);
  await hostNginxControl(ctx.config).reload();
  const after = await servedSerial(ctx.https, A);
  assert.is.not(after, before, 'the new certificate is served');
  assert.is(await servedName(ctx.https, A), A);
});

/** The panel's CLI from its sources, as the bundle's `node server.mjs` runs it on a box. */
const PANEL_CLI = [process.execPath, '--import', fileURLToPath(new URL('../../../helpers/register.mjs', import.meta.url)), fileURLToPath(new URL('../../../../lib/cli.ts', import.meta.url))];

s('without a root helper certbot\'s deploy hook is the panel\'s nginx-reload, which makes the map: a renewal is served once the hook ran', async (ctx) => {
  const configFile = await writeOnboardedConfig(ctx.dir, { file: 'panel.json', domain: DOMAIN, system: { ...ctx.config } });
  const hook = join(ctx.dir, 'deploy-hook');
  await writeFile(hook, deployHookScript(deployHookCommand(ctx.config, panelReloadArgv(PANEL_CLI, configFile))), { mode: 0o755 });
  const before = await servedSerial(ctx.https, A);
  const renewed = before === (await certSerial(ctx.pairs.a.fullchain)) ? ctx.pairs.a2 : ctx.pairs.a;
  await rm(live(ctx, A), { recursive: true });
  await install(ctx, A, renewed);
  // as certbot runs it after a renewal: the script, with no environment of the panel's
  const output = execFileSync(hook, [], { encoding: 'utf8', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } });
  assert.match(output, 'nginx reloaded with the certificate map made');
  assert.is(await servedSerial(ctx.https, A), await certSerial(renewed.fullchain), 'the renewed certificate is served');
});

s('a key that does not match its certificate is never written: the name keeps what it had, and the log says so', async (ctx) => {
  const served = await servedSerial(ctx.https, B);
  const lines: string[] = [];
  await copyFile(ctx.pairs.stranger.privkey, join(live(ctx, B), 'privkey.pem'));
  try {
    await hostNginxControl(ctx.config, (line) => lines.push(line)).reload();
    assert.is(await servedSerial(ctx.https, B), served, 'the earlier entry still serves');
    assert.equal(lines, [`certificate map: ${join(live(ctx, B), 'fullchain.pem')} refused for ${B}: the key does not match the certificate; its entry is kept as it was`]);
  } finally {
    await copyFile(ctx.pairs.b.privkey, join(live(ctx, B), 'privkey.pem'));
  }
});

s('an RSA-4096 certificate and key (5 KB of PEM, past the 4,094 characters nginx reads in one word) is served from its parts', async (ctx) => {
  const c = `c.${DOMAIN}`;
  const dir = join(ctx.dir, 'pairs');
  execFileSync('/usr/bin/openssl', ['req', '-x509', '-newkey', 'rsa:4096', '-nodes', '-days', '2', '-subj', `/CN=${c}`, '-addext', `subjectAltName=DNS:${c}`,
    '-keyout', join(dir, 'c.key'), '-out', join(dir, 'c.pem')], { stdio: 'ignore' });
  await install(ctx, c, { fullchain: join(dir, 'c.pem'), privkey: join(dir, 'c.key') });
  await store(ctx).apply([route(c, 4103)]);
  assert.is(await servedName(ctx.https, c), c);
  const second = await readFile(entryOf(ctx, c, 1), 'utf8');
  assert.match(second, new RegExp(`^${c.replaceAll('.', '\\.')} "[A-Za-z0-9+/=\\n -]+";\\n$`), 'the second part holds the rest');
  await store(ctx).apply([{ op: 'remove', name: `relay-app-${c}.conf` }]);
});

s('a removed route\'s entry goes, and its name gets the fallback', async (ctx) => {
  await store(ctx).apply([{ op: 'remove', name: `relay-app-${B}.conf` }]);
  await stat(entryOf(ctx, B)).then(() => assert.unreachable('the entry stayed'), (e: NodeJS.ErrnoException) => assert.is(e.code, 'ENOENT'));
  assert.is(await servedName(ctx.https, B), 'relay-default');
  assert.is(await servedName(ctx.https, A), A);
});

s.run();
