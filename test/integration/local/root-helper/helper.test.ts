// The root helper over its Unix socket, in process: the panel's client (root-client.ts) against the
// helper's server with the helper's own configuration, temp vhost directories, /bin/true playing
// nginx and the fake systemctl (the real nginx, systemd and socket unit: test/system).
import { chmod, lstat, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { createConnection, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readHelperConfig } from '../../../../lib/root-helper/config.ts';
import { createDispatcher } from '../../../../lib/root-helper/dispatch.ts';
import { runRootHelper } from '../../../../lib/root-helper/main.ts';
import { startHelperServer } from '../../../../lib/root-helper/server.ts';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import { rootCall, socketRootActions } from '../../../../lib/system/root/root-client.ts';
import { MAX_ROOT_REQUEST_BYTES } from '../../../../lib/system/root/root-protocol.ts';

const SITES = '/var/www/relay-sites';
const SITE_ID = '0b5e3f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const FAKE_SYSTEMCTL = fileURLToPath(new URL('../../../fakes/bin/systemctl', import.meta.url));
const site = (over: Record<string, unknown> = {}) => ({ kind: 'site', fqdn: 'docs.example.com', root: `${SITES}/${SITE_ID}`, spaMode: true, protected: false, ...over });

interface Ctx { dir: string; config: SystemConfig; server: Server | null; socket: string; log: string[] }
const s = suite<Ctx>('root helper (socket, strict requests)', { dir: '', config: systemConfig(), server: null, socket: '', log: [] });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-root-helper-'));
  ctx.socket = join(ctx.dir, 'root.sock');
  ctx.log = [];
  process.env.FAKE_SYSTEMD_STATE = join(ctx.dir, 'systemd.json');
  process.env.FAKE_ARGV_LOG = join(ctx.dir, 'argv.log');
  ctx.config = systemConfig({
    driver: 'host',
    binaries: { nginx: '/bin/true', systemctl: FAKE_SYSTEMCTL },
    nginx: { conf: join(ctx.dir, 'nginx.conf'), sitesAvailable: join(ctx.dir, 'available'), sitesEnabled: join(ctx.dir, 'enabled'), tlsDir: join(ctx.dir, 'tls'), errorLog: join(ctx.dir, 'error.log'), reloadCheckMs: 0, reloadWith: 'systemctl' },
    sites: { root: SITES },
    // a panel with a user of its own: its vhosts name root's copies (runAs null: a root panel's own files)
    systemd: { runAs: 'root' },
  });
  // nginx runs, so its reload is systemctl's and shows in the argv log
  await writeFile(process.env.FAKE_SYSTEMD_STATE, JSON.stringify({ [`${ctx.config.units.proxy}.service`]: { state: 'active', since: Date.now() } }));
  ctx.server = await startHelperServer({
    dispatcher: createDispatcher(ctx.config, { exact: [], prefix: [] }, (line) => ctx.log.push(line)),
    listen: { path: ctx.socket }, idleMs: 0, log: (line) => ctx.log.push(line), onIdle: () => undefined,
  });
});
s.after.each(async (ctx) => {
  await new Promise((resolve) => ctx.server?.close(resolve));
  delete process.env.FAKE_SYSTEMD_STATE;
  delete process.env.FAKE_ARGV_LOG;
  await rm(ctx.dir, { recursive: true, force: true });
});

/** The helper's answer to raw text, as a caller that is not our client would send it. */
function raw(socket: string, text: string | Buffer): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const conn = createConnection(socket);
    let got = '';
    conn.on('data', (d) => (got += d));
    conn.on('end', () => {
      try {
        resolve(JSON.parse(got));
      } catch {
        reject(new Error(`not a JSON answer: ${JSON.stringify(got)}`));
      }
    });
    conn.on('error', reject);
    conn.end(text);
  });
}
const ran = async (dir: string) => (await readFile(join(dir, 'argv.log'), 'utf8').catch(() => '')).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l).argv as string[]);

s('the socket is 0660: the panel\'s group may connect, nobody else', async ({ socket }) => {
  assert.is((await lstat(socket)).mode & 0o777, 0o660);
});

s('vhosts: the checked changes are rendered from the helper\'s configuration, written, linked, removed', async ({ config, socket }) => {
  const root = socketRootActions(rootCall(socket, 10_000));
  await root.applyVhosts([{ op: 'put', spec: site() as never, enabled: true }]);
  const file = join(config.nginx.sitesAvailable, 'relay-site-docs.example.com.conf');
  const text = await readFile(file, 'utf8');
  assert.match(text, `root "${SITES}/${SITE_ID}";`);
  // root's copy, never certbot's file (tls-copies.ts); no certificate yet, so no copy either
  assert.match(text, `ssl_certificate "${join(config.nginx.tlsDir, 'docs.example.com', 'fullchain.pem')}";`);
  assert.is((await lstat(file)).mode & 0o777, 0o644);
  assert.is(await readlink(join(config.nginx.sitesEnabled, 'relay-site-docs.example.com.conf')), file);
  await root.applyVhosts([{ op: 'remove', name: 'relay-site-docs.example.com.conf' }]);
  assert.equal(await readdir(config.nginx.sitesAvailable), []);
  assert.equal(await readdir(config.nginx.sitesEnabled), []);
});

s('the default server leaves out a hash bucket setting nginx.conf gives (nginx refuses it twice), and writes it again once the operator removes theirs', async ({ config, socket }) => {
  const root = socketRootActions(rootCall(socket, 10_000));
  await writeFile(config.nginx.conf, 'events {}\nhttp {\n    server_names_hash_bucket_size 64;\n    # map_hash_bucket_size 64;\n}\n');
  await root.applyVhosts([{ op: 'put', spec: { kind: 'default' }, enabled: true }]);
  const file = join(config.nginx.sitesAvailable, 'relay-default.conf');
  const text = await readFile(file, 'utf8');
  assert.not.match(text, /^server_names_hash_bucket_size/m);
  assert.match(text, "\n# server_names_hash_bucket_size 64: set by nginx's main configuration\nmap_hash_bucket_size 512;\n");
  await writeFile(config.nginx.conf, 'events {}\nhttp {\n}\n');
  assert.equal(await root.refreshVhosts([{ kind: 'default' }]), ['relay-default.conf']);
  assert.match(await readFile(file, 'utf8'), '\nserver_names_hash_bucket_size 512;\nmap_hash_bucket_size 512;\n');
});

s('vhosts-refresh: only a vhost whose text the templates would change is rewritten, its link kept; nothing is created; no reload when nothing differs', async ({ dir, socket, config }) => {
  const root = socketRootActions(rootCall(socket, 10_000));
  // as the panel of the release before asked it, during an upgrade: the portal's name is accepted and dropped
  await root.applyVhosts([{ op: 'put', spec: site({ portalFqdn: 'auth.example.com' }) as never, enabled: false }]);
  const name = 'relay-site-docs.example.com.conf';
  const file = join(config.nginx.sitesAvailable, name);
  const current = await readFile(file, 'utf8');
  const reloads = async () => (await ran(dir)).filter((argv) => argv.join(' ') === `reload ${config.units.proxy}`).length;
  const before = await reloads();
  assert.equal(await root.refreshVhosts([site() as never, { kind: 'default' }]), []);
  assert.is(await reloads(), before, 'nothing differs: no reload');
  await writeFile(file, current.replace('index index.html;', 'index index.htm;'));
  assert.equal(await root.refreshVhosts([site() as never, { kind: 'default' }]), [name]);
  assert.is(await readFile(file, 'utf8'), current);
  assert.is(await reloads(), before + 1);
  assert.equal(await readdir(config.nginx.sitesEnabled), [], 'still not linked');
  assert.equal(await readdir(config.nginx.sitesAvailable), [name], 'the default server is not created by a refresh');
});

s('units: state, properties and control run the configured systemctl with the configured unit names', async ({ dir, socket, config }) => {
  const root = socketRootActions(rootCall(socket, 10_000));
  assert.is(await root.unitState('tunnel-server'), 'inactive');
  await root.controlUnit('tunnel-server', 'restart');
  assert.is(await root.unitState('tunnel-server'), 'active');
  assert.ok((await root.unitProperties('tunnel-server', ['ActiveEnterTimestamp'])).ActiveEnterTimestamp?.endsWith('UTC'));
  await root.controlUnit('panel', 'restart');
  await root.controlUnit('renew-timer', 'enable');
  await root.daemonReload();
  const lines = await ran(dir);
  assert.ok(lines.some((a) => a.join(' ') === `restart ${config.units['tunnel-server']}`));
  assert.ok(lines.some((a) => a.join(' ') === `restart --no-block ${config.units.panel}`), 'the panel\'s own restart does not wait for itself');
  assert.ok(lines.some((a) => a.join(' ') === 'enable --now relay-panel-renew.timer'), 'the panel\'s own timer, not Debian\'s certbot.timer');
  assert.ok(lines.some((a) => a.join(' ') === 'daemon-reload'));
});

s('anything else is refused with where and why, and nothing runs or is written', async ({ dir, socket, config, log }) => {
  const cases: Array<[string | Buffer, RegExp]> = [
    ['not json', /^Refused: not a JSON document$/],
    [JSON.stringify({ action: 'exec', argv: ['/bin/sh'] }), /^Refused: action: /],
    [JSON.stringify({ action: 'unit', unit: 'ssh', op: 'restart' }), /^Refused: unit: /],
    [JSON.stringify({ action: 'unit', unit: 'proxy', op: 'edit' }), /^Refused: op: /],
    [JSON.stringify({ action: 'unit', unit: 'panel', op: 'stop' }), /^Refused: the panel service cannot be stopped/],
    [JSON.stringify({ action: 'unit', unit: 'proxy', op: 'stop' }), /^Refused: the proxy service cannot be stopped/],
    [JSON.stringify({ action: 'unit', unit: 'renew-timer', op: 'stop' }), /^Refused: the renewal timer can only be enabled$/],
    [JSON.stringify({ action: 'unit', unit: 'proxy', op: 'restart', binary: '/tmp/evil' }), /^Refused: Unrecognized key: "binary"$/],
    [JSON.stringify({ action: 'nginx-test', config: '/tmp/evil.conf' }), /^Refused: Unrecognized key: "config"$/],
    [JSON.stringify({ action: 'unit-properties', unit: 'proxy', properties: ['ExecStart'] }), /^Refused: properties\.0: /],
    [JSON.stringify({ action: 'vhosts', changes: [] }), /^Refused: changes: .*>=1/],
    [JSON.stringify({ action: 'vhosts', changes: [{ op: 'remove', name: '../../etc/nginx/nginx.conf' }] }), /^Refused: changes\.0\.name: must be a relay-panel vhost file name$/],
    [JSON.stringify({ action: 'vhosts', changes: [{ op: 'put', spec: site({ root: `${SITES}/${SITE_ID}/../../../etc` }), enabled: true }] }), /^Refused: changes\.0\.spec\.root: must be a site directory/],
    [JSON.stringify({ action: 'vhosts', changes: [{ op: 'put', spec: site({ fqdn: 'Docs.example.com;' }), enabled: true }] }), /^Refused: changes\.0\.spec\.fqdn: must be a lowercase domain name$/],
    [JSON.stringify({ action: 'vhosts', changes: [{ op: 'put', spec: site(), enabled: true }, { op: 'put', spec: site({ fqdn: 'x.example.com', root: '/' }), enabled: true }] }), /^Refused: changes\.1\.spec\.root/],
    [JSON.stringify({ action: 'vhosts', changes: [{ op: 'put', spec: { kind: 'ip-panel' }, enabled: true, include: '/tmp/x.conf' }] }), /^Refused: changes\.0: Unrecognized key: "include"$/],
    [Buffer.alloc(MAX_ROOT_REQUEST_BYTES + 1, 0x20), /^Refused: request larger than/],
  ];
  for (const [text, error] of cases) {
    const answer = await raw(socket, text);
    assert.is(answer.ok, false, String(text).slice(0, 80));
    assert.match(String(answer.error), error, String(text).slice(0, 80));
  }
  assert.equal(await ran(dir), [], 'no program ran');
  assert.equal(await readdir(config.nginx.sitesAvailable).catch(() => []), [], 'no vhost written');
  assert.ok(log.every((line) => line.startsWith('refused: ')), log.join('\n'));
});

s('the client fails with the helper\'s words as a SystemError; an absent helper is named', async ({ dir, socket }) => {
  const call = rootCall(socket, 10_000);
  const refused = await call({ action: 'unit', unit: 'panel', op: 'stop' }).then(() => null, (e: Error) => e.message);
  assert.is(refused, 'Refused: the panel service cannot be stopped through the panel');
  const absent = await rootCall(join(dir, 'none.sock'), 10_000)({ action: 'nginx-test' }).then(() => null, (e: Error) => e.message);
  assert.match(String(absent), /^root helper: cannot reach .*none\.sock: ENOENT$/);
  // state questions answer 'unknown' rather than failing a status page
  assert.is(await socketRootActions(rootCall(join(dir, 'none.sock'), 10_000)).unitState('proxy'), 'unknown');
});

s('its configuration steers root, so as root it is refused unless root alone may write it; the commands say how to use them', async ({ dir, config }) => {
  const file = join(dir, 'root-helper.json');
  await writeFile(file, JSON.stringify(config), { mode: 0o644 });
  assert.is((await readHelperConfig(file)).nginx.sitesAvailable, config.nginx.sitesAvailable);
  if (process.geteuid?.() === 0) {
    await chmod(file, 0o666);
    const refused = await readHelperConfig(file).then(() => null, (e: Error) => e.message);
    assert.is(refused, `root helper configuration refused: ${file} is writable by someone other than root`);
  }
  let said = '';
  const errors = { write: (chunk: string) => Boolean((said += chunk)) };
  assert.is(await runRootHelper('root-call', ['--socket', join(dir, 'root.sock'), 'exec'], { exact: [], prefix: [] }, errors), 2);
  assert.match(said, 'relay-panel root-call: one action: nginx-reload or nginx-test');
  said = '';
  assert.is(await runRootHelper('root-call', ['--socket', join(dir, 'none.sock'), 'nginx-test'], { exact: [], prefix: [] }, errors), 1);
  assert.match(said, /^root helper: cannot reach .*none\.sock: ENOENT\n$/);
});

s.run();
