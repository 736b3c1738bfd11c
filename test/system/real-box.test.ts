// The release on a real box: a Debian 12 booted with systemd as PID 1 (systemd-nspawn), real sudo,
// nginx, certbot against pebble and dnsmasq inside it; fake chisel and Authelia (neither can be
// had here) at the configured binary paths. Driven only as an operator (commands as root inside
// the box) and an admin (HTTPS through nginx with the admin P12) would.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTimeout } from '../helpers/timeout.ts';
import { BIND_KEY_NAME, BIND_PORT, bindSecret } from './bind-in-box.ts';
import { bootBox, consoleLog, type Box } from './box.ts';
import { boxClient, multipart, type BoxClient, type Identity } from './client.ts';
import { BOX_DOMAIN, BOX_IP, buildImage, PEBBLE_DIR, placeRelease } from './image.ts';
import { underLoad, type LoadReport } from './load.ts';
import { exposure, inSandbox, sandboxProperties } from './least-privilege.ts';
import { pathsOf, leftovers } from './leftovers.ts';
import { buildReleases, type Releases } from './releases.ts';
import { OPENSSL_WITNESS, WITNESS_MODULE } from './operator-files.ts';
import { stampVhost } from '../../lib/system/proxy/vhost-stamp.ts';
import { printStepTimes } from '../helpers/step-times.ts';

const s = suite('a real box (booted Debian 12, systemd, sudo, nginx, certbot + pebble, dnsmasq; fake chisel and Authelia): install, onboard, serve, upgrade, roll back, reboot, doctor, uninstall');
printStepTimes(s);

const IP_PANEL = `https://${BOX_IP}:9292`;
const PANEL = `https://panel.${BOX_DOMAIN}`;
const APP_PORT = 8765;
/**
 * A TCP tunnel's public port on the box; the UDP tunnel's is the next one. Below the kernel's
 * ephemeral range (32768-60999): a port in it can be a client socket's local port at the moment
 * nginx binds it (a run failed so, `bind() to 0.0.0.0:43022 failed (98: Address already in use)`).
 */
const STREAM_PORT = 30022;

/** Node one-liners run in the box: a TCP and a UDP echo on loopback, and probes that print what came back. */
const echoes = (tcp: number, udp: number) => `const u = require('dgram').createSocket('udp4'); u.on('message', (m, r) => u.send(m, r.port, r.address)); u.bind(${udp}, '127.0.0.1'); require('net').createServer((c) => c.pipe(c)).listen(${tcp}, '127.0.0.1');`;
const tcpProbe = (port: number) => `const c = require('net').connect(${port}, '${BOX_IP}', () => c.write('ping')); c.on('data', (d) => { console.log(String(d)); process.exit(0); }); c.on('close', () => { console.log('closed'); process.exit(1); }); c.on('error', (e) => { console.log(e.code); process.exit(1); }); setTimeout(() => { console.log('timeout'); process.exit(2); }, 15_000);`;
const udpProbe = (port: number) => `const u = require('dgram').createSocket('udp4'); u.on('message', (m) => { console.log(String(m)); process.exit(0); }); u.send('ping', ${port}, '${BOX_IP}'); setTimeout(() => { console.log('timeout'); process.exit(2); }, 15_000);`;

let dir: string;
let box: Box;
let client: BoxClient;
let releases: Releases;
let admin: Identity;
let agent: Identity;
let before: Set<string>;
const loads: Record<string, LoadReport> = {};
const scores: Record<string, number> = {};

const inBox = (script: string) => ['/bin/sh', '-c', script];

/** What only root could write: each stays absent whatever the panel's user planted. */
const WITNESSES = [OPENSSL_WITNESS, '/root/relay-witness-hook', '/root/relay-witness-prehook'];
async function noWitnesses(): Promise<void> {
  for (const path of WITNESSES) assert.is((await box.run(['test', '-e', path])).code, 1, `${path}: root ran what the panel's user planted`);
}

/** A shell script run as the panel's user inside its unit's own sandbox (the attacker's seat); it must succeed. */
async function asPanel(script: string): Promise<string> {
  const sandbox = ['User=relay-panel', 'Group=relay-panel', ...(await sandboxProperties(box, 'relay-panel.service'))];
  const r = await inSandbox(box, sandbox, ['/bin/sh', '-ec', script]);
  assert.is(r.code, 0, `as the panel's user: ${script}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Hooks in the panel's certbot directory: a script in renewal-hooks/pre and a pre_hook line in a lineage's renewal configuration. */
function plantHooks(name: string): string {
  const d = '/etc/relay-panel/letsencrypt';
  const ran = '/var/log/relay-panel-acme/relay-witness-ran';
  return [
    `mkdir -p ${d}/renewal-hooks/pre`,
    `printf '#!/bin/sh\\nid -u >> ${ran}\\ntouch /root/relay-witness-hook\\n' > ${d}/renewal-hooks/pre/relay-witness`,
    `chmod 755 ${d}/renewal-hooks/pre/relay-witness`,
    `sed -i 's|^\\[renewalparams\\]$|[renewalparams]\\npre_hook = sh -c "id -u >> ${ran}; touch /root/relay-witness-prehook"|' ${d}/renewal/${name}.conf`,
    `grep -q relay-witness-prehook ${d}/renewal/${name}.conf`,
  ].join('\n');
}

/** The operator's own files in /etc/letsencrypt as they were before the install: owner, mode, link or content. */
let operatorBefore: string[] = [];
const operatorFiles = async () => (await box.sh(inBox(
  `find /etc/letsencrypt -path '*/other.example.org*' -o -name cli.ini -o -path '*/keys/*' | sort | while read f; do if [ -L "$f" ]; then echo "$f $(stat -c '%U %a' "$f") -> $(readlink "$f")"; elif [ -f "$f" ]; then echo "$f $(stat -c '%U %a' "$f") $(sha256sum < "$f" | cut -c1-16)"; else echo "$f $(stat -c '%U %a' "$f")"; fi; done`,
))).trim().split('\n');

/** Unpacks a release tarball in /root and runs one of its operator commands there. */
async function relayPanel(version: string, args: string): Promise<{ code: number; out: string }> {
  const r = await box.run(inBox(`cd /root && tar -xzf relay-panel-${version}.tar.gz && cd relay-panel-${version} && ./relay-panel ${args}`), { timeoutMs: 180_000 });
  return { code: r.code, out: r.stdout + r.stderr };
}

/** The operator's scp of a release to the box. */
const copyIn = (tarball: string, version: string) => copyFile(tarball, join(box.root, 'root', `relay-panel-${version}.tar.gz`));

const current = () => readlink(join(box.root, 'opt/relay-panel/current'));
const active = async (unit: string) => (await box.run(['systemctl', 'is-active', unit])).stdout.trim();

s.before(async () => {
  try {
    await prepare();
  } catch (e) {
    // uvu would only say that the run ended early
    console.error(e);
    throw e;
  }
});

async function prepare(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('the system test boots a container and installs as root: run npm test as root');
  dir = await mkdtemp('/var/tmp/relay-system-');
  const root = join(dir, 'root');
  // the releases' builds (CPU) beside mmdebstrap (mostly downloads and dpkg): each is about a minute
  // both settle before a failure is thrown: the after hook removes the directory the other still writes
  const prepared = Date.now();
  const [built, image] = await Promise.allSettled([buildReleases(dir), buildImage(root)]);
  if (built.status === 'rejected') throw built.reason;
  if (image.status === 'rejected') throw image.reason;
  releases = built.value;
  await placeRelease(root, releases.first);
  before = await pathsOf(root);
  box = await bootBox(root, `relaybox-${randomBytes(3).toString('hex')}`, dir).catch(async (e) => {
    throw new Error(`${(e as Error).message}\nconsole: ${(await consoleLog(dir)).slice(-2000)}`);
  });
  console.log(`\n  [${((Date.now() - prepared) / 1000).toFixed(1)} s] the releases and the image built, the box booted`);
  client = boxClient(box);
  for (const r of [releases.first, releases.second, releases.broken]) await copyIn(r.tarball, r.version);
  operatorBefore = await operatorFiles();
  assert.ok(operatorBefore.some((l) => l.includes('privkey1.pem root 600')), operatorBefore.join('\n'));
}

s.after(async () => {
  // the figures the README's performance section reports
  if (Object.keys(loads).length) console.log(`  requests through nginx while the panel switched: ${JSON.stringify(loads)}`);
  if (Object.keys(scores).length) console.log(`  systemd-analyze security exposure: ${JSON.stringify(scores)}`);
  if (process.env.RELAY_SYSTEM_KEEP) return console.log(`  RELAY_SYSTEM_KEEP: the box still runs in ${dir}; poweroff: nsenter -t <its PID 1> -a systemctl poweroff`);
  await box?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

s('install: the README command on a fresh box, every step ok, the panel runs as its own user behind nginx', async () => {
  const { code, out } = await relayPanel(releases.first.version, `install --ip ${BOX_IP} --no-downloads --system-config /root/box-system.json`);
  assert.is(code, 0, out);
  const steps = out.split('\n').filter((l) => /^\[..\] /.test(l));
  assert.ok(steps.length >= 10, out);
  assert.equal(steps.filter((l) => !/^\[(ok|--)\] /.test(l)), [], 'every step ok or skipped');
  // the startup snapshot holds the code of a rehearsal start the box's own node ran as root, in the release
  assert.match(out, ', with the code a rehearsal start compiled', out);
  assert.equal((await box.sh(['ls', '-A', '/opt/relay-panel/current/'])).split('\n').filter((name) => name.startsWith('.relay-rehearsal-')), [], 'no rehearsal directory left');
  const password = /its password, shown only now: (\S+)/.exec(out)?.[1];
  assert.ok(password, out);
  admin = { pfx: await readFile(join(box.root, 'root/relay-panel-admin.p12')), passphrase: password! };

  assert.is(await active('relay-panel'), 'active');
  const pid = (await box.sh(['systemctl', 'show', '-p', 'MainPID', '--value', 'relay-panel'])).trim();
  assert.is((await box.sh(['ps', '-o', 'user=', '-p', pid])).trim(), 'relay-panel');
  assert.is(await active('relay-panel-root.socket'), 'active');
  assert.is((await client.call('GET', `${IP_PANEL}/api/onboarding/status`)).status, 496, 'no certificate');
  const status = await client.call('GET', `${IP_PANEL}/api/onboarding/status`, { identity: admin });
  const { suggestedDomain, publicLinks, ...spec } = status.body;
  assert.equal(spec, { status: 'FRESH', domain: null, email: null });
  // a real host: nothing offered, links by nginx over https
  assert.equal([suggestedDomain, publicLinks.scheme], [null, 'https']);
});

s('onboarding through the IP panel: domain, DNS check, provisioning watched on the live stream, against pebble and dnsmasq', async () => {
  const domain = await client.call('POST', `${IP_PANEL}/api/onboarding/domain`, { identity: admin, json: { domain: BOX_DOMAIN, email: `ops@${BOX_DOMAIN}` } });
  assert.is(domain.status, 200, domain.text);
  const dns = await client.call('POST', `${IP_PANEL}/api/onboarding/verify-dns`, { identity: admin });
  assert.is(dns.body.status, 'DNS_READY', dns.text);
  assert.equal(dns.body.base.addresses, [BOX_IP]);

  const stream = await client.stream(`wss://${BOX_IP}:9292/api/onboarding/provision/stream`, admin);
  await stream.waitFor((m) => m.type === 'state');
  const started = await client.call('POST', `${IP_PANEL}/api/onboarding/provision`, { identity: admin });
  assert.is(started.status, 202, started.text);
  const last = await withTimeout('provisioning', 120_000, () => stream.waitFor((m) => m.type === 'complete' || m.type === 'error'));
  stream.close();
  assert.is(last.type, 'complete', JSON.stringify(stream.messages.slice(-5)));

  // the names are served with pebble's certificates from now on; its root is the test's trust anchor
  client.trust(await box.sh(['curl', '-sf', '--cacert', `${PEBBLE_DIR}/wfe-ca.pem`, 'https://127.0.0.1:15000/roots/0']));
  const panel = await client.call('GET', `${PANEL}/api/onboarding/status`, { identity: admin });
  assert.equal(panel.body.status, 'COMPLETED');
  for (const unit of ['nginx', 'relay-panel', 'chisel', 'authelia']) assert.is(await active(unit), 'active', unit);
});

s('a tunnel: its route and the chisel authfile appear, nginx puts it behind the portal and serves its own certificate from root\'s map', async () => {
  const created = await client.call('POST', `${PANEL}/api/tunnels`, { identity: admin, json: { subdomain: 'app', port: APP_PORT } });
  assert.is(created.status, 201, created.text);
  const name = `relay-app-app.${BOX_DOMAIN}.conf`;
  // one label under the domain: a route of the shared server, which per name gives each name its own certificate
  assert.is(await readlink(join(box.root, 'etc/nginx/relay-routes', name)), `/etc/nginx/sites-available/${name}`);
  const route = (await readFile(join(box.root, 'etc/nginx/sites-available', name), 'utf8')).split('\n').filter((l) => l && !l.startsWith('#'));
  assert.equal(route, [`app.${BOX_DOMAIN} ${APP_PORT};`]);
  const shared = `relay-tunnels-${BOX_DOMAIN}.conf`;
  assert.is(await readlink(join(box.root, 'etc/nginx/sites-enabled', shared)), `/etc/nginx/sites-available/${shared}`);
  assert.match(await readFile(join(box.root, 'etc/nginx/sites-available', shared), 'utf8'), 'ssl_certificate data:$relay_sni_pem0$relay_sni_pem1$relay_sni_pem2$relay_sni_pem3;');
  const served = () => box.sh(inBox(`openssl s_client -connect ${BOX_IP}:443 -servername app.${BOX_DOMAIN} </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256`));
  const own = await box.sh(['openssl', 'x509', '-noout', '-fingerprint', '-sha256', '-in', `/etc/relay-panel/letsencrypt/live/app.${BOX_DOMAIN}/cert.pem`]);
  await waitUntil('nginx serving the tunnel\'s own certificate', async () => (await served()) === own);
  // the map holds keys: root's alone, never the panel's user's nor nginx's workers'
  const modes = await box.sh(inBox('stat -c "%U %a" /etc/nginx/relay-panel-tls/sni /etc/nginx/relay-panel-tls/sni/names /etc/nginx/relay-panel-tls/sni/fallback.0.conf /etc/nginx/relay-panel-tls/sni/names/*.0.conf'));
  assert.equal(modes.trim().split('\n'), ['root 700', 'root 700', 'root 600', 'root 600']);
  const authfile = JSON.parse(await readFile(join(box.root, 'etc/chisel/users.json'), 'utf8')) as Record<string, string[]>;
  assert.ok(Object.values(authfile).some((rules) => rules.some((r) => r.includes(String(APP_PORT)))), JSON.stringify(authfile));
  const app = await client.call('GET', `https://app.${BOX_DOMAIN}/some/page?a=1`);
  assert.is(app.status, 302, app.text);
  assert.ok(String(app.headers.location).startsWith(`https://auth.${BOX_DOMAIN}/`), String(app.headers.location));
  assert.is(new URL(String(app.headers.location)).searchParams.get('rd'), `https://app.${BOX_DOMAIN}/some/page?a=1`);
  // nginx's traffic log reaches the sandboxed panel over loopback UDP
  await waitUntil('the request counted', async () => {
    const status = await client.call('GET', `${PANEL}/api/tunnels/status`, { identity: admin });
    return status.body.tunnels.find((x: { subdomain: string }) => x.subdomain === 'app')?.traffic.lastMinute.requests >= 1;
  });
});

s('TCP and UDP tunnels: the root helper writes their stream servers; an echo through each, a source outside the allow list refused, a public port already held refused by name, the sessions counted', async () => {
  const create = async (json: Record<string, unknown>) => {
    const created = await client.call('POST', `${PANEL}/api/tunnels`, { identity: admin, json });
    assert.is(created.status, 201, created.text);
    return created.body.tunnel as { id: string; tunnelPort: number };
  };
  const tcp = await create({ protocol: 'tcp', publicPort: STREAM_PORT, port: APP_PORT + 1 });
  const udp = await create({ protocol: 'udp', publicPort: STREAM_PORT + 1, port: APP_PORT + 2 });
  // nginx hands each public port's traffic to the tunnel server's loopback port for that tunnel
  const server = await readFile(join(box.root, 'etc/nginx/relay-streams', `relay-stream-tcp-${STREAM_PORT}.conf`), 'utf8');
  assert.match(server, `proxy_pass 127.0.0.1:${tcp.tunnelPort};`);
  // the tunnel client's side of chisel's reverse listeners, played by echoes on those loopback ports
  await box.sh(['systemd-run', '--unit=relay-test-echo', '--collect', '/usr/local/bin/node', '-e', echoes(tcp.tunnelPort, udp.tunnelPort)]);
  try {
    await waitUntil('the echoes listen', async () => (await box.run(['ss', '-Hltn', `sport = :${tcp.tunnelPort}`])).stdout.includes(String(tcp.tunnelPort)));
    assert.is((await box.run(['/usr/local/bin/node', '-e', tcpProbe(STREAM_PORT)])).stdout.trim(), 'ping', 'TCP through the stream server');
    assert.is((await box.run(['/usr/local/bin/node', '-e', udpProbe(STREAM_PORT + 1)])).stdout.trim(), 'ping', 'UDP through the stream server');
    await waitUntil('the sessions counted', async () => {
      const status = await client.call('GET', `${PANEL}/api/tunnels/streams/status`, { identity: admin });
      return (status.body.streams as Array<{ id: string; traffic: { lastMinute: { requests: number } } }>).find((x) => x.id === tcp.id)?.traffic.lastMinute.requests === 1;
    });
    const narrowed = await client.call('PATCH', `${PANEL}/api/tunnels/streams/${tcp.id}`, { identity: admin, json: { allow: ['192.0.2.0/24'] } });
    assert.is(narrowed.status, 200, narrowed.text);
    assert.is.not((await box.run(['/usr/local/bin/node', '-e', tcpProbe(STREAM_PORT)])).stdout.trim(), 'ping', 'a source outside the allow list gets nothing');
    const taken = await client.call('POST', `${PANEL}/api/tunnels`, { identity: admin, json: { protocol: 'tcp', publicPort: STREAM_PORT, port: 22 } });
    assert.is(taken.status, 400, taken.text);
    assert.match(taken.body.error, `Public port ${STREAM_PORT} is already in use by`);
  } finally {
    await box.run(['systemctl', 'stop', 'relay-test-echo']);
    for (const { id } of [tcp, udp]) assert.is((await client.call('DELETE', `${PANEL}/api/tunnels/${id}`, { identity: admin })).status, 200);
  }
  assert.is((await box.run(['test', '-e', `/etc/nginx/relay-streams/relay-stream-tcp-${STREAM_PORT}.conf`])).code, 1, 'deleted with its tunnel');
});

s('a managed site: the uploaded index.html is served over TLS by nginx', async () => {
  const created = await client.call('POST', `${PANEL}/api/sites`, { identity: admin, json: { name: 'blog', type: 'managed' } });
  assert.is(created.status, 201, created.text);
  const id = created.body.site.id as string;
  const form = await multipart({ 'index.html': '<h1>hello from a real box</h1>\n' });
  const upload = await client.call('POST', `${PANEL}/api/sites/${id}/files`, { identity: admin, body: form.body, headers: form.headers });
  assert.is(upload.status, 200, upload.text);
  const page = await client.call('GET', `https://blog.${BOX_DOMAIN}/`);
  assert.is(page.status, 200);
  assert.is(page.text, '<h1>hello from a real box</h1>\n');
});

s('a portal user lands in the users database the portal reads', async () => {
  const created = await client.call('POST', `${PANEL}/api/users`, {
    identity: admin, json: { username: 'alice', displayname: 'Alice', email: `alice@${BOX_DOMAIN}`, password: 'correct-horse-battery' },
  });
  assert.is(created.status, 201, created.text);
  const users = await readFile(join(box.root, 'etc/authelia/users_database.yml'), 'utf8');
  assert.match(users, 'alice');
  assert.match(users, /\$2[ab]\$12\$/);
  assert.is(await active('authelia'), 'active');
});

s('an agent certificate works through nginx', async () => {
  const made = await client.call('POST', `${PANEL}/api/certs/agent`, { identity: admin, json: { label: 'laptop-1', capabilities: ['tunnels:read'] } });
  assert.is(made.status, 201, made.text);
  const p12 = await client.call('GET', `${PANEL}/api/certs/agent/laptop-1/download`, { identity: admin });
  assert.is(p12.status, 200);
  agent = { pfx: p12.raw, passphrase: made.body.p12Password };
  const tunnels = await client.call('GET', `${PANEL}/api/tunnels`, { identity: agent });
  assert.is(tunnels.status, 200, tunnels.text);
  assert.equal(tunnels.body.tunnels.map((t: { subdomain: string }) => t.subdomain), ['app']);
  assert.is((await client.call('GET', `${PANEL}/api/users`, { identity: agent })).status, 403, 'no capability, no users');
});

s('least privilege: inside the panel\'s sandbox a vhost, sudo, /root and a setuid binary are out of reach; the root API paths work through the root helper; systemd rates the unit at most 3.0', async () => {
  assert.is(await box.run(['test', '-e', '/etc/sudoers.d/relay-panel']).then((r) => r.code), 1, 'no sudo rule for the panel');
  const sandbox = ['User=relay-panel', 'Group=relay-panel', ...(await sandboxProperties(box, 'relay-panel.service'))];
  assert.ok(sandbox.includes('NoNewPrivileges=yes'), sandbox.join('\n'));
  // a root-owned setuid copy of id: it prints its effective uid
  await box.sh(['install', '-o', 'root', '-m', '4755', '/usr/bin/id', '/usr/local/bin/relay-test-suid-id']);
  try {
    const asPanelUser = (argv: string[]) => box.run(['runuser', '-u', 'relay-panel', '--', ...argv]);
    const sandboxed = (argv: string[]) => inSandbox(box, sandbox, argv);
    // each refusal beside what proves it is the sandbox's: the same thing works outside it
    assert.is.not((await sandboxed(['/bin/sh', '-c', 'echo "server {}" > /etc/nginx/sites-available/relay-evil.conf'])).code, 0, 'a vhost written directly');
    assert.is((await box.run(['test', '-e', '/etc/nginx/sites-available/relay-evil.conf'])).code, 1);
    assert.is.not((await sandboxed(['sudo', '-n', 'true'])).code, 0, 'sudo');
    assert.is((await box.run(['sudo', '-n', 'true'])).code, 0, 'sudo itself works (for root)');
    assert.is.not((await sandboxed(['cat', '/root/relay-panel-admin.p12'])).code, 0, '/root');
    assert.is((await sandboxed(['/usr/local/bin/relay-test-suid-id', '-u'])).stdout.trim(), (await box.sh(['id', '-u', 'relay-panel'])).trim(), 'the setuid bit gives nothing');
    assert.is((await asPanelUser(['/usr/local/bin/relay-test-suid-id', '-u'])).stdout.trim(), '0', 'outside the sandbox it would');
    const chmod = await sandboxed(['/bin/sh', '-c', 'cp /bin/true /var/lib/relay-panel/suid && chmod u+s /var/lib/relay-panel/suid; r=$?; rm -f /var/lib/relay-panel/suid; exit $r']);
    assert.is.not(chmod.code, 0, 'no setuid file made');
  } finally {
    await box.sh(['rm', '-f', '/usr/local/bin/relay-test-suid-id']);
  }
  // every root path the API has: unit state, control of each service, nginx reload (vhosts went through it above)
  const services = await client.call('GET', `${PANEL}/api/services`, { identity: admin });
  assert.is(services.status, 200, services.text);
  assert.equal(services.body.services.map((x: { status: string }) => x.status), ['active', 'active', 'active', 'active'], services.text);
  for (const [name, action] of [['tunnel-server', 'restart'], ['auth-portal', 'restart'], ['proxy', 'reload']]) {
    const r = await client.call('POST', `${PANEL}/api/services/${name}/${action}`, { identity: admin });
    assert.is(r.status, 200, `${name} ${action}: ${r.text}`);
  }
  const renewal = await client.call('GET', `${PANEL}/api/certs/auto-renew-status`, { identity: admin });
  assert.is(renewal.status, 200, renewal.text);
  for (const unit of ['relay-panel.service', 'chisel.service', 'authelia.service', 'relay-panel-root.service', 'relay-panel-renew.service']) scores[unit] = await exposure(box, unit);
  assert.ok(scores['relay-panel.service']! <= 3.0, `relay-panel.service exposure ${scores['relay-panel.service']}`);
  assert.ok(scores['relay-panel-root.service']! <= 3.0, `the root helper writes only what its actions need: ${scores['relay-panel-root.service']}`);
});

s('chisel and Authelia run as users of their own, who cannot reach the root helper, write the panel\'s state or replace the panel\'s files', async () => {
  for (const [unit, user] of [['chisel', 'relay-panel-chisel'], ['authelia', 'relay-panel-authelia']] as const) {
    const pid = (await box.sh(['systemctl', 'show', '-p', 'MainPID', '--value', unit])).trim();
    assert.is((await box.sh(['ps', '-o', 'user=', '-p', pid])).trim(), user, unit);
  }
  const as = (user: string, script: string) => box.run(['runuser', '-u', user, '--', '/bin/sh', '-c', script]);
  const connect = `node -e "require('net').createConnection('/run/relay-panel-root.sock').on('error', (e) => { console.log(e.code); process.exit(1); }).on('connect', () => process.exit(0))"`;
  for (const user of ['relay-panel-chisel', 'relay-panel-authelia']) {
    const helper = await as(user, connect);
    assert.equal([helper.code, helper.stdout.trim()], [1, 'EACCES'], `${user} and the root helper`);
    assert.is.not((await as(user, 'touch /var/lib/relay-panel/relay-test')).code, 0, `${user} writes the panel's state`);
  }
  // the same connection works for the panel's user: the refusals above are the users', not the test's
  assert.is((await as('relay-panel', connect)).code, 0);
  // Authelia writes its storage in its directory (sticky): it cannot put a configuration of its own in place of the panel's
  assert.is.not((await as('relay-panel-authelia', 'echo {} > /etc/authelia/evil.yml && mv /etc/authelia/evil.yml /etc/authelia/configuration.yml')).code, 0);
  await box.sh(['rm', '-f', '/etc/authelia/evil.yml']);
  assert.match(await box.sh(['cat', '/etc/authelia/configuration.yml']), 'managed by relay-panel');
  // chisel reads its authfile and key, nothing of the panel's secrets
  assert.is((await as('relay-panel-chisel', 'cat /etc/chisel/users.json /etc/chisel/host-key.pem > /dev/null')).code, 0);
  assert.is.not((await as('relay-panel-chisel', 'cat /etc/chisel/credential.json')).code, 0);
});

s('the panel\'s own timer renews as its user in its sandbox, in its own directory: a renewal reaches pebble, its deploy hook reloads nginx through the root helper, and a hook the panel\'s user planted runs as that user only; Debian\'s certbot and /etc/letsencrypt stay root\'s', async () => {
  assert.is((await box.sh(['systemctl', 'show', '-p', 'User', '--value', 'relay-panel-renew.service'])).trim(), 'relay-panel');
  assert.is((await box.sh(['systemctl', 'show', '-p', 'User', '--value', 'certbot.service'])).trim(), '', 'Debian\'s certbot as packaged (root)');
  assert.is((await box.sh(['systemctl', 'is-enabled', 'relay-panel-renew.timer'])).trim(), 'enabled');
  const name = `app.${BOX_DOMAIN}`;
  // attack: hooks planted by the panel's user, from inside its unit's sandbox, in its certbot directory
  await asPanel(plantHooks(name));
  const served = () => box.sh(inBox(`openssl s_client -connect ${BOX_IP}:443 -servername ${name} </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256`));
  const before = await served();
  // the timer's run renews nothing due; certbot's own configuration file makes this run renew one name
  await box.sh(inBox(`printf 'force-renewal = true\\ncert-name = ${name}\\n' > /etc/letsencrypt/cli.ini.relay-test && cp -p /etc/letsencrypt/cli.ini /etc/letsencrypt/cli.ini.kept 2>/dev/null; cat /etc/letsencrypt/cli.ini.relay-test >> /etc/letsencrypt/cli.ini`));
  try {
    const run = await box.run(['systemctl', 'start', 'relay-panel-renew.service'], { timeoutMs: 120_000 });
    assert.is(run.code, 0, `${run.stderr}\n${await box.sh(['journalctl', '-u', 'relay-panel-renew.service', '--no-pager', '-n', '30'])}`);
  } finally {
    await box.sh(inBox('if [ -e /etc/letsencrypt/cli.ini.kept ]; then mv /etc/letsencrypt/cli.ini.kept /etc/letsencrypt/cli.ini; else rm -f /etc/letsencrypt/cli.ini; fi; rm -f /etc/letsencrypt/cli.ini.relay-test'));
  }
  const live = await box.sh(inBox(`openssl x509 -noout -fingerprint -sha256 -in /etc/relay-panel/letsencrypt/live/${name}/cert.pem`));
  assert.is.not(live, before, 'a new certificate');
  await waitUntil('nginx serving the renewed certificate', async () => (await served()) === live);
  // written by the panel's user, never by root
  const owners = await box.sh(inBox(`find /etc/relay-panel/letsencrypt/archive/${name} /etc/relay-panel/letsencrypt/live/${name} -printf '%u\\n' | sort -u`));
  assert.equal(owners.trim().split('\n'), ['relay-panel']);
  assert.match(await box.sh(['journalctl', '-u', 'relay-panel-root', '--no-pager', '-o', 'cat']), 'nginx-reload: ok');
  // the planted hooks ran, as the panel's user: they could not write where root can
  const uid = (await box.sh(['id', '-u', 'relay-panel'])).trim();
  assert.equal((await box.sh(['cat', '/var/log/relay-panel-acme/relay-witness-ran'])).trim().split('\n'), [uid, uid]);
  await noWitnesses();
  // the operator's own certificates are as they were before the install
  assert.equal(await operatorFiles(), operatorBefore);
});

s('wildcard mode on the box: DNS-01 through its bind (dnsmasq forwards the challenge), a new tunnel served under the wildcard by the shared server, the panel\'s timer renews through bind as the panel\'s user, and back to a certificate per name', async () => {
  const started = Date.now();
  const acme = '/etc/relay-panel/letsencrypt';
  const wild = `wild.${BOX_DOMAIN}`;
  const available = (file: string) => join(box.root, 'etc/nginx/sites-available', file);
  const shared = `relay-tunnels-${BOX_DOMAIN}.conf`;
  const route = `relay-app-${wild}.conf`;
  const exists = async (path: string) => (await box.run(['test', '-e', path])).code === 0;
  const fingerprint = (name: string) => box.sh(['openssl', 'x509', '-noout', '-fingerprint', '-sha256', '-in', `${acme}/live/${name}/cert.pem`]);
  const served = (name: string) => box.sh(inBox(`openssl s_client -connect ${BOX_IP}:443 -servername ${name} </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256`));
  // named's query log: each order makes pebble look the challenge up, through dnsmasq, here
  const lookups = async () => (await box.sh(['journalctl', '-u', 'named', '--no-pager', '-o', 'cat'])).split(`_acme-challenge.${BOX_DOMAIN} IN TXT`).length - 1;
  const settings = (json: unknown) => client.call('PUT', `${PANEL}/api/settings/certificates`, { identity: admin, json, timeoutMs: 120_000 });

  // 1. the wildcard lineage, through bind
  const credentials = { server: '127.0.0.1', port: BIND_PORT, name: BIND_KEY_NAME, secret: await bindSecret(box.root) };
  const toWildcard = await settings({ mode: 'wildcard', provider: 'rfc2136', credentials, propagationSeconds: 0 });
  assert.is(toWildcard.status, 200, toWildcard.text);
  assert.is(toWildcard.body.mode, 'wildcard');
  assert.match(await box.sh(['openssl', 'x509', '-noout', '-ext', 'subjectAltName', '-in', `${acme}/live/${BOX_DOMAIN}/cert.pem`]), `DNS:${BOX_DOMAIN}, DNS:*.${BOX_DOMAIN}`);
  await waitUntil('pebble\'s lookups of the challenge in bind\'s query log', async () => (await lookups()) > 0);

  // 2. a tunnel under it: no certificate of its own, a route of the one shared server
  const created = await client.call('POST', `${PANEL}/api/tunnels`, { identity: admin, json: { subdomain: 'wild', port: APP_PORT + 3 } });
  assert.is(created.status, 201, created.text);
  const id = created.body.tunnel.id as string;
  assert.not.ok(await exists(`${acme}/live/${wild}`), 'certbot issued nothing for the tunnel');
  assert.is(await readlink(join(box.root, 'etc/nginx/sites-enabled', shared)), `/etc/nginx/sites-available/${shared}`);
  assert.match(await readFile(available(shared), 'utf8'), `server_name *.${BOX_DOMAIN};`);
  const routeLines = (await readFile(available(route), 'utf8')).split('\n').filter((l) => l && !l.startsWith('#'));
  assert.equal(routeLines, [`${wild} ${APP_PORT + 3};`]);
  assert.is(await readlink(join(box.root, 'etc/nginx/relay-routes', route)), `/etc/nginx/sites-available/${route}`);
  assert.not.ok(await exists(`/etc/nginx/sites-enabled/${route}`), 'a route, not a server of its own');
  const page = await client.call('GET', `https://${wild}/some/page`);
  assert.is(page.status, 302, page.text);
  assert.ok(String(page.headers.location).startsWith(`https://auth.${BOX_DOMAIN}/`), String(page.headers.location));
  assert.is(await served(wild), await fingerprint(BOX_DOMAIN), 'the wildcard certificate');
  assert.is((await client.call('GET', `https://app.${BOX_DOMAIN}/some/page`)).status, 302, 'the earlier tunnel moved into the shared server too');

  // 3. the panel's timer renews the wildcard as the panel's user, its sandbox reaching bind and the credentials file
  const before = await fingerprint(BOX_DOMAIN);
  const lookupsBefore = await lookups();
  await box.sh(inBox(`printf 'force-renewal = true\\ncert-name = ${BOX_DOMAIN}\\n' > /etc/letsencrypt/cli.ini.relay-test && cp -p /etc/letsencrypt/cli.ini /etc/letsencrypt/cli.ini.kept 2>/dev/null; cat /etc/letsencrypt/cli.ini.relay-test >> /etc/letsencrypt/cli.ini`));
  try {
    const run = await box.run(['systemctl', 'start', 'relay-panel-renew.service'], { timeoutMs: 120_000 });
    assert.is(run.code, 0, `${run.stderr}\n${await box.sh(['journalctl', '-u', 'relay-panel-renew.service', '--no-pager', '-n', '30'])}`);
  } finally {
    await box.sh(inBox('if [ -e /etc/letsencrypt/cli.ini.kept ]; then mv /etc/letsencrypt/cli.ini.kept /etc/letsencrypt/cli.ini; else rm -f /etc/letsencrypt/cli.ini; fi; rm -f /etc/letsencrypt/cli.ini.relay-test'));
  }
  const renewed = await fingerprint(BOX_DOMAIN);
  assert.is.not(renewed, before, 'a new wildcard certificate');
  await waitUntil('pebble looking the new challenge up in bind', async () => (await lookups()) > lookupsBefore);
  const owners = await box.sh(inBox(`find ${acme}/archive/${BOX_DOMAIN} ${acme}/live/${BOX_DOMAIN} -printf '%u\\n' | sort -u`));
  assert.equal(owners.trim().split('\n'), ['relay-panel']);
  await waitUntil('nginx serving the renewed wildcard', async () => (await served(wild)) === renewed);

  // 4. back to per-name: the tunnel's own certificate (HTTP-01), served by the shared server from root's map
  const toPerName = await settings({ mode: 'per-name' });
  assert.is(toPerName.status, 200, toPerName.text);
  assert.match(await box.sh(['openssl', 'x509', '-noout', '-ext', 'subjectAltName', '-in', `${acme}/live/${wild}/cert.pem`]), `DNS:${wild}`);
  assert.is(await readlink(join(box.root, 'etc/nginx/relay-routes', route)), `/etc/nginx/sites-available/${route}`, 'still a route');
  assert.not.ok(await exists(`${acme}/live/${BOX_DOMAIN}`), 'the wildcard lineage is deleted');
  assert.match(await readFile(available(shared), 'utf8'), 'ssl_certificate data:$relay_sni_pem0$relay_sni_pem1$relay_sni_pem2$relay_sni_pem3;');
  assert.not.match(await readFile(available(shared), 'utf8'), `/${BOX_DOMAIN}/fullchain.pem`, 'no longer the wildcard');
  assert.is((await client.call('GET', `https://${wild}/some/page`)).status, 302);
  await waitUntil('nginx serving the tunnel\'s own certificate', async () => (await served(wild)) === (await fingerprint(wild)));
  assert.is((await client.call('GET', `https://app.${BOX_DOMAIN}/some/page`)).status, 302);
  const removed = await client.call('DELETE', `${PANEL}/api/tunnels/${id}`, { identity: admin });
  assert.is(removed.status, 200, removed.text);
  console.log(`  wildcard mode on the box: ${Date.now() - started} ms`);
});

/** The vhosts as an earlier release left them: Debian's default site instead of ours, and the old login redirect in `vhost`. */
async function asEarlierRelease(vhost: string): Promise<void> {
  const file = join(box.root, 'etc/nginx/sites-available', vhost);
  const text = await readFile(file, 'utf8');
  const old = text
    .replace(/# relay-panel sha256 .*\n$/, '')
    .replace('    auth_request_set $relay_redirection_url $upstream_http_location;\n', '')
    .replace('error_page 401 =302 $relay_redirection_url;', `error_page 401 =302 https://auth.${BOX_DOMAIN}/?rd=$scheme://$http_host$request_uri;`);
  assert.not.match(old, '$relay_redirection_url', 'the vhost has the redirect this test rewinds');
  assert.is.not(old, text.replace(/# relay-panel sha256 .*\n$/, ''), 'the vhost had the new redirect');
  // stamped as that release did, so the start-up's tunnel repair does not take it for a hand edit
  await writeFile(file, stampVhost(old));
  await box.sh(inBox('rm /etc/nginx/sites-enabled/relay-default.conf /etc/nginx/sites-available/relay-default.conf && ln -s /etc/nginx/sites-available/default /etc/nginx/sites-enabled/default && nginx -t -q && systemctl reload nginx'));
}

/** What a browser is sent to after the portal: the `rd` of the redirect. */
const returnAddress = async (url: string) => new URL(String((await client.call('GET', url)).headers.location)).searchParams.get('rd');

/**
 * Whether five new connections in a row are sent back to `expected` after the portal. After a
 * reload an old worker that has not yet taken its signal to stop can still accept a connection and
 * answer from the configuration before (CI, 2026-11-29 10:50: one such answer right after a first
 * new one), so one answer does not say the reload is over.
 */
async function answersSteadily(url: string, expected: string): Promise<boolean> {
  for (let i = 0; i < 5; i++) if ((await returnAddress(url)) !== expected) return false;
  return true;
}

/**
 * The answer of nginx on the box to a name without a vhost, outside the base domain (a name under
 * it is the shared tunnels' server's, which answers as the default server does), with curl in the
 * box: the default server's certificate is self-signed.
 */
const unknownName = () => box.sh(inBox(`curl -sk -w ' %{http_code}' --resolve nothing-here.invalid:443:${BOX_IP} https://nothing-here.invalid/`));

s('upgrade to a second build under load, no flags (the install\'s --no-downloads remembered): data kept, current moves, no request fails; a box an earlier release left gets the default server and the new login redirect', async () => {
  // the app is a route: the shared server it is served by carries the redirect
  const appVhost = `relay-tunnels-${BOX_DOMAIN}.conf`;
  const page = `https://app.${BOX_DOMAIN}/some/page?a=1&b=2`;
  await asEarlierRelease(appVhost);
  // `systemctl reload` returns before nginx's new workers answer
  const cut = `https://app.${BOX_DOMAIN}/some/page?a=1`;
  // up to 30 s: under the full CI's load one run saw more than 10 (2026-11-29 06:09)
  await waitUntil('nginx serving the earlier vhosts', () => answersSteadily(page, cut), 30_000);
  assert.is.not(await unknownName(), 'Not found\n 404', 'Debian\'s default site answers instead');
  const tunnelsBefore = (await client.call('GET', `${PANEL}/api/tunnels`, { identity: admin })).body;
  const load = await underLoad(client, [`${PANEL}/api/health`, `${PANEL}/api/tunnels`], admin, () => relayPanel(releases.second.version, 'upgrade'));
  loads.upgrade = load.report;
  assert.is(load.result.code, 0, load.result.out);
  assert.is(await current(), `releases/${releases.second.version}`);
  assert.equal((await client.call('GET', `${PANEL}/api/tunnels`, { identity: admin })).body, tunnelsBefore);
  assert.equal(load.report.failures, [], `requests failed during the upgrade: ${JSON.stringify(load.report)}`);
  // the upgrade's vhosts step, then the new panel's start through the root helper
  assert.match(load.result.out, "Debian's default site unlinked");
  assert.is(await unknownName(), 'Not found\n 404');
  assert.is((await box.run(['test', '-e', '/etc/nginx/sites-enabled/default'])).code, 1, 'Debian\'s link is gone');
  await waitUntil('nginx giving the whole address back', () => answersSteadily(page, page));
  assert.match(await box.sh(['journalctl', '-u', 'relay-panel', '--no-pager', '-o', 'cat']), `rewrote 1 vhost with this release's templates: ${appVhost}`);
});

s('a restart under load loses no request', async () => {
  const load = await underLoad(client, [`${PANEL}/api/health`, `${PANEL}/api/tunnels`], admin, async () => {
    const r = await box.run(['systemctl', 'restart', 'relay-panel']);
    return { code: r.code, out: r.stdout + r.stderr };
  });
  loads.restart = load.report;
  assert.is(load.result.code, 0, load.result.out);
  assert.equal(load.report.failures, [], `requests failed during the restart: ${JSON.stringify(load.report)}`);
});

s('upgrade to a build that cannot start: rolled back, the box still answers', async () => {
  const { code, out } = await relayPanel(releases.broken.version, 'upgrade --health-timeout 60');
  assert.is(code, 1, out);
  assert.match(out, 'rolled back');
  // not waited out (60 s): systemd's restarts of the crashing release end the wait, about 5 s in
  assert.match(out, /did not answer \/api\/health \((it exited at start and systemd restarted it \d+ times|systemd reports relay-panel\.service failed)\)/);
  assert.is(await current(), `releases/${releases.second.version}`);
  assert.is(await active('relay-panel'), 'active');
  assert.is((await client.call('GET', `${PANEL}/api/health`)).status, 200);
});

s('upgrade --downloads with no network: fails at the download, current, units and the running panel as they were', async () => {
  const units = ['relay-panel.service', 'relay-panel.socket', 'chisel.service', 'authelia.service'].map((u) => join(box.root, 'etc/systemd/system', u));
  const unitsBefore = await Promise.all(units.map((u) => readFile(u, 'utf8')));
  const mainPid = async () => (await box.run(['systemctl', 'show', '-p', 'MainPID', '--value', 'relay-panel'])).stdout.trim();
  const pidBefore = await mainPid();
  const { code, out } = await relayPanel(releases.broken.version, 'upgrade --downloads');
  assert.is(code, 1, out);
  assert.match(out, /\[!!\] units/);
  assert.match(out, 'rolled back');
  assert.match(out, 'the panel was not restarted');
  assert.is(await current(), `releases/${releases.second.version}`);
  assert.equal(await Promise.all(units.map((u) => readFile(u, 'utf8'))), unitsBefore);
  assert.is(await mainPid(), pidBefore, 'the panel that ran keeps running');
  assert.is((await client.call('GET', `${PANEL}/api/health`)).status, 200);
});

s('poweroff and boot again: every unit comes back, the data and the agent certificate still work', async () => {
  await box.reboot();
  for (const unit of ['nginx', 'relay-panel', 'chisel', 'authelia']) assert.is(await active(unit), 'active', unit);
  const tunnels = await client.call('GET', `${PANEL}/api/tunnels`, { identity: agent });
  assert.is(tunnels.status, 200, tunnels.text);
  assert.equal(tunnels.body.tunnels.map((t: { subdomain: string }) => t.subdomain), ['app']);
  assert.is((await client.call('GET', `https://blog.${BOX_DOMAIN}/`)).text, '<h1>hello from a real box</h1>\n');
});

s('a revoked agent certificate is refused at nginx', async () => {
  const revoked = await client.call('DELETE', `${PANEL}/api/certs/agent/laptop-1`, { identity: admin });
  assert.is(revoked.status, 200, revoked.text);
  assert.is((await client.call('GET', `${PANEL}/api/tunnels`, { identity: agent })).status, 496);
  assert.is((await client.call('GET', `${PANEL}/api/tunnels`, { identity: admin })).status, 200);
});

async function waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function doctor(): Promise<{ code: number; out: string }> {
  const r = await box.run(['/opt/relay-panel/current/relay-panel', 'doctor']);
  return { code: r.code, out: r.stdout + r.stderr };
}

s('doctor: no problem on the healthy box; a stopped unit, a hand-edited site vhost and a hand-edited tunnel vhost are named with their fix, which puts each back', async () => {
  const healthy = await doctor();
  assert.is(healthy.code, 0, healthy.out);
  assert.match(healthy.out, 'no problems found');
  // the addresses nginx really listens on (every address: the production default), not a probe's
  assert.match(healthy.out, '[ok] ports: IP panel listens on 0.0.0.0:9292');
  assert.match(healthy.out, '[ok] ports: https listens on 0.0.0.0:443');

  await box.sh(['systemctl', 'stop', 'chisel']);
  const stopped = await doctor();
  assert.is(stopped.code, 1, stopped.out);
  assert.match(stopped.out, /chisel is inactive/);
  assert.match(stopped.out, /systemctl restart chisel/);
  await box.sh(['systemctl', 'start', 'chisel']);

  // a site's vhost: the start-up refresh puts it back before the panel answers (the tunnel repair only knows tunnels)
  const vhost = join(box.root, `etc/nginx/sites-available/relay-site-blog.${BOX_DOMAIN}.conf`);
  const original = await readFile(vhost, 'utf8');
  await writeFile(vhost, original.replace('index index.html;', 'index index.html index.php;'));
  const edited = await doctor();
  assert.is(edited.code, 1, edited.out);
  assert.match(edited.out, `edited by hand since relay-panel wrote them: relay-site-blog.${BOX_DOMAIN}.conf`);
  assert.match(edited.out, 'systemctl restart relay-panel rewrites every relay vhost from the records');
  // the fix doctor names puts the panel's vhost back
  await box.sh(['systemctl', 'restart', 'relay-panel']);
  await waitUntil('the repaired vhost', async () => (await readFile(vhost, 'utf8')) === original);
  const again = await doctor();
  assert.is(again.code, 0, again.out);

  // a tunnel's vhost alone: the start's look a second after it listens puts it back, through the
  // root helper. The start before rewrote the site's vhost before it listened, so it looked at
  // every file then and left no look for later that could take this edit first.
  const invocation = (await box.sh(['systemctl', 'show', '-p', 'InvocationID', '--value', 'relay-panel'])).trim();
  const journal = await box.sh(['journalctl', `_SYSTEMD_INVOCATION_ID=${invocation}`, '--no-pager', '-o', 'cat']);
  assert.match(journal, new RegExp(`rewrote \\d+ vhosts? with this release's templates: .*relay-site-blog\\.`));
  const route = join(box.root, `etc/nginx/sites-available/relay-app-app.${BOX_DOMAIN}.conf`);
  const routeText = await readFile(route, 'utf8');
  await writeFile(route, `${routeText}# added by hand\n`);
  assert.match((await doctor()).out, `edited by hand since relay-panel wrote them: relay-app-app.${BOX_DOMAIN}.conf`);
  await box.sh(['systemctl', 'restart', 'relay-panel']);
  await waitUntil('the repaired tunnel vhost', async () => (await readFile(route, 'utf8')) === routeText);
  assert.is((await doctor()).code, 0);
});

/** The operator's install command again, as the README has it (its choices are remembered). */
const installAgain = () => relayPanel(releases.second.version, 'install');

s('attack: a module named in the panel\'s OpenSSL configuration is loaded by root in no root code path (install again, doctor)', async () => {
  const cnf = '/etc/relay-panel/pki/ca.cnf';
  const original = await box.sh(['cat', cnf]);
  await asPanel([
    `cp ${WITNESS_MODULE} /var/lib/relay-panel/relay-witness.so`,
    `printf 'openssl_conf = init\\n[init]\\nproviders = prov\\n[prov]\\nwitness = witness_sect\\ndefault = default_sect\\n[witness_sect]\\nmodule = /var/lib/relay-panel/relay-witness.so\\nactivate = 1\\n[default_sect]\\nactivate = 1\\n' | cat - ${cnf} > ${cnf}.new && mv ${cnf}.new ${cnf}`,
    // with the CRL gone, install's certificates step makes one: openssl ca -gencrl -config ca.cnf
    'mv /etc/relay-panel/pki/crl.pem /etc/relay-panel/pki/crl.pem.aside',
  ].join('\n'));
  try {
    // the plant is real: root running OpenSSL on that file runs the module as uid 0
    await box.run(['openssl', 'ca', '-config', cnf, '-gencrl', '-out', '/dev/null']);
    assert.is((await box.sh(['cat', OPENSSL_WITNESS])).trim(), '0', 'root loads the module named in the file');
    await box.sh(['rm', '-f', OPENSSL_WITNESS]);
    const install = await installAgain();
    assert.match(install.out, '[ok] certificates', install.out);
    // doctor, and the fix it prints for a CRL nginx cannot load (root's copy gone), run as the operator would
    await box.sh(['mv', '/etc/nginx/relay-panel-tls/client-ca/crl.pem', '/root/relay-crl-copy.pem']);
    const doctor = await relayPanel(releases.second.version, 'doctor');
    const fix = /\[!!\] crl: .*\n\s+fix: .*regenerate it as relay-panel: (setsid -w runuser -u relay-panel -- .*)$/m.exec(doctor.out)?.[1];
    assert.ok(fix, doctor.out);
    await box.run(inBox(fix!));
    await noWitnesses();
  } finally {
    await asPanel(`printf '%s' '${original.replace(/'/g, `'\\''`)}' > ${cnf}; rm -f /var/lib/relay-panel/relay-witness.so; mv /etc/relay-panel/pki/crl.pem.aside /etc/relay-panel/pki/crl.pem 2>/dev/null || true`);
    // root's copy back from the panel's CRL, as every reload makes it
    await box.sh(['rm', '-f', '/root/relay-crl-copy.pem']);
    await asPanel('/opt/relay-panel/bin/relay-panel-root nginx-reload');
    assert.ok((await box.run(['test', '-s', '/etc/nginx/relay-panel-tls/client-ca/crl.pem'])).code === 0, 'the CRL copy is back');
  }
});

s('attack: install again and upgrade refuse a link the panel\'s user put in place of one of its directories, and never follow it into a root-only directory', async () => {
  await box.sh(inBox('mkdir -m 0700 /root/relay-secret && echo secret > /root/relay-secret/secret.txt && chmod 0644 /root/relay-secret/secret.txt'));
  await asPanel('mv /etc/relay-panel/ip-panel-cert /etc/relay-panel/ip-panel-cert.real && ln -s /root/relay-secret /etc/relay-panel/ip-panel-cert');
  try {
    const install = await installAgain();
    assert.is(install.code, 1, install.out);
    assert.match(install.out, '/etc/relay-panel/ip-panel-cert is a symbolic link, not a directory');
    // and an upgrade: refused at the same place, rolled back, the running release kept
    const upgrade = await relayPanel(releases.broken.version, 'upgrade');
    assert.is(upgrade.code, 1, upgrade.out);
    assert.match(upgrade.out, '/etc/relay-panel/ip-panel-cert is a symbolic link, not a directory');
    assert.is(await current(), `releases/${releases.second.version}`);
    assert.is((await box.sh(['stat', '-c', '%a %U', '/root/relay-secret'])).trim(), '700 root');
    assert.equal((await box.sh(['ls', '-A', '/root/relay-secret'])).trim().split('\n'), ['secret.txt']);
  } finally {
    await asPanel('rm /etc/relay-panel/ip-panel-cert && mv /etc/relay-panel/ip-panel-cert.real /etc/relay-panel/ip-panel-cert');
    await box.sh(['rm', '-rf', '/root/relay-secret']);
  }
});

s('attack: nginx never loads a root-only key through the panel\'s links, nor blocks on a FIFO planted as a certificate; doctor names both', async () => {
  const name = `app.${BOX_DOMAIN}`;
  const live = `/etc/relay-panel/letsencrypt/live/${name}`;
  await box.sh(inBox('cd /root && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=victim -keyout relay-victim.key -out relay-victim.pem 2>/dev/null && chmod 600 relay-victim.key'));
  const victim = await box.sh(inBox('openssl x509 -noout -fingerprint -sha256 -in /root/relay-victim.pem'));
  const served = () => box.sh(inBox(`openssl s_client -connect ${BOX_IP}:443 -servername ${name} </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256`));
  const before = await served();
  const links = await asPanel(`readlink ${live}/fullchain.pem ${live}/privkey.pem`);
  const [fullchain, privkey] = links.trim().split('\n');
  const tunnel = (await client.call('GET', `${PANEL}/api/tunnels`, { identity: admin })).body.tunnels.find((t: { subdomain: string }) => t.subdomain === 'app');
  await asPanel(`ln -sfn /root/relay-victim.pem ${live}/fullchain.pem && ln -sfn /root/relay-victim.key ${live}/privkey.pem`);
  try {
    // certbot's deploy hook asks for a reload: root's copy stays what it was
    await asPanel('/opt/relay-panel/bin/relay-panel-root nginx-reload');
    assert.is(await served(), before, 'nginx serves what it served');
    const doctor = await relayPanel(releases.second.version, 'doctor');
    assert.match(doctor.out, `[!!] root-paths: ${live}/fullchain.pem refused: a link to "/root/relay-victim.pem"`);
    // the panel asks the helper for the app's vhost again: refused, nothing written
    assert.is((await client.call('PATCH', `${PANEL}/api/tunnels/${tunnel.id}`, { identity: admin, json: { enabled: false } })).status, 200);
    const enable = await client.call('PATCH', `${PANEL}/api/tunnels/${tunnel.id}`, { identity: admin, json: { enabled: true } });
    assert.is(enable.status, 500, enable.text);
    assert.match(enable.text, `${live}/fullchain.pem refused: a link to`);
    assert.is.not(await served(), victim);
  } finally {
    await asPanel(`ln -sfn ${fullchain} ${live}/fullchain.pem && ln -sfn ${privkey} ${live}/privkey.pem`);
    await box.sh(['rm', '-f', '/root/relay-victim.key', '/root/relay-victim.pem']);
  }
  const back = await client.call('PATCH', `${PANEL}/api/tunnels/${tunnel.id}`, { identity: admin, json: { enabled: true } });
  assert.is(back.status, 200, back.text);
  await waitUntil('nginx serving the app\'s certificate again', async () => (await served()) === before);

  const cert = '/etc/relay-panel/ip-panel-cert/default.pem';
  await asPanel(`mv ${cert} ${cert}.aside && mkfifo ${cert}`);
  try {
    // a helper that opened the FIFO would block: the timeout fails the test
    const [test, reload] = await withTimeout('nginx-test and nginx-reload with a FIFO as a certificate', 60_000, () =>
      Promise.all(['nginx-test', 'nginx-reload'].map((action) => asPanel(`/opt/relay-panel/bin/relay-panel-root ${action}`))));
    assert.equal([test, reload], ['', '']);
    const doctor = await relayPanel(releases.second.version, 'doctor');
    assert.match(doctor.out, `${cert} refused: a FIFO, not a regular file`);
  } finally {
    await asPanel(`rm ${cert} && mv ${cert}.aside ${cert}`);
  }
  await noWitnesses();
});

s('uninstall, then install: every vhost back, every unit enabled; root\'s certbot never ran the hooks the panel\'s user planted; fail2ban as install found it', async () => {
  const { code, out } = await box.run(['/opt/relay-panel/current/relay-panel', 'uninstall']).then((r) => ({ code: r.code, out: r.stdout + r.stderr }));
  assert.is(code, 0, out);
  for (const unit of ['relay-panel', 'chisel', 'authelia', 'relay-panel-renew.timer']) assert.is(await active(unit), 'inactive', unit);
  assert.is.not((await box.run(['systemctl', 'is-failed', 'fail2ban'])).stdout.trim(), 'failed', 'fail2ban is not left failed');
  // Debian's certbot, as root, over its own directory: the hooks planted in the panel's stay the panel's
  const certbot = await box.run(['systemctl', 'start', 'certbot.service'], { timeoutMs: 120_000 });
  assert.is(certbot.code, 0, `${certbot.stderr}\n${await box.sh(['journalctl', '-u', 'certbot.service', '--no-pager', '-n', '20'])}`);
  await noWitnesses();
  assert.equal(await operatorFiles(), operatorBefore);

  const install = await installAgain();
  assert.is(install.code, 0, install.out);
  for (const unit of ['nginx', 'relay-panel', 'chisel', 'authelia', 'relay-panel-renew.timer']) {
    // a unit just started can still be 'activating' (chisel was caught once in a 2 s auto-restart under CI load; its journal says why if it stays so)
    await waitUntil(`${unit} active again`, async () => (await active(unit)) === 'active', 15_000).catch(async (e: Error) => {
      throw new Error(`${e.message}: ${await active(unit)}\n${await box.sh(['journalctl', '-u', unit, '--no-pager', '-n', '20', '-o', 'cat'])}`);
    });
    assert.is((await box.sh(['systemctl', 'is-enabled', unit])).trim(), 'enabled', unit);
  }
  const panelAnswers = async () => (await client.call('GET', `${PANEL}/api/onboarding/status`, { identity: admin }).catch(() => null))?.status === 200;
  await waitUntil('the panel behind nginx', panelAnswers, 30_000).catch(async (e: Error) => {
    throw new Error(`${e.message}\n${await box.sh(['journalctl', '-u', 'relay-panel', '-u', 'relay-panel-root', '--no-pager', '-n', '40', '-o', 'cat'])}\n${await box.sh(['ls', '/etc/nginx/sites-enabled', '/etc/nginx/relay-panel-tls'])}`);
  });
  assert.is((await client.call('GET', `https://auth.${BOX_DOMAIN}/`)).status < 500, true, 'the portal answers');
  assert.is((await client.call('GET', `https://app.${BOX_DOMAIN}/some/page`)).status, 302, 'the tunnel\'s vhost is back');
  assert.is((await client.call('GET', `https://blog.${BOX_DOMAIN}/`)).text, '<h1>hello from a real box</h1>\n');
});

s('uninstall --purge leaves no path, user, unit, root helper or vhost the install made, and the operator\'s own certificates as they were', async () => {
  const { code, out } = await box.run(['/opt/relay-panel/current/relay-panel', 'uninstall', '--purge']).then((r) => ({ code: r.code, out: r.stdout + r.stderr }));
  assert.is(code, 0, out);
  for (const user of ['relay-panel', 'relay-panel-chisel', 'relay-panel-authelia']) assert.is((await box.run(['getent', 'passwd', user])).code, 2, `${user} is gone`);
  for (const unit of ['relay-panel', 'chisel', 'authelia', 'relay-panel-root.socket', 'relay-panel-root', 'relay-panel-renew.timer']) assert.is(await active(unit), 'inactive', unit);
  const left = leftovers(before, await pathsOf(box.root));
  assert.equal(left, [], `left behind:\n${left.join('\n')}`);
  assert.equal(await operatorFiles(), operatorBefore);
  assert.match(out, "nothing else (Debian's /etc/letsencrypt and anything of the operator's stay)");
});

s.run();
