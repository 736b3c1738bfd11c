// The root file system of a fresh Debian 12 "VPS" (recipes/booted-debian.md), made from Debian's
// packages once per run: mmdebstrap with the packages the installer would apt-get already in it
// (the container has no network, so the installer's own package step must find them present),
// plus what only the test brings: the host's Node, the release tarball, the fake chisel and
// Authelia at the configured binary paths, pebble (ACME), dnsmasq and bind (DNS-01, bind-in-box.ts)
// set up as the box's own services, and the box's public address on its loopback.
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bindInImage, dnsmasqForward } from './bind-in-box.ts';
import { operatorLineage, witnessModule } from './operator-files.ts';

const run = promisify(execFile);
const FAKES = fileURLToPath(new URL('../fakes/bin/', import.meta.url));

/** The address the box's operator passes to `install --ip`; it lives on the container's own loopback. */
export const BOX_IP = '203.0.113.10';
export const BOX_DOMAIN = 'example.test';
export const PEBBLE_DIR = '/etc/pebble-test';

const PACKAGES = [
  // sudo: a VPS has it, and the least-privilege test shows the panel cannot use it
  'systemd', 'systemd-sysv', 'dbus', 'ca-certificates', 'curl', 'iproute2', 'procps', 'openssl', 'sudo',
  // what `relay-panel install` would apt-get (nginx, libnginx-mod-stream, certbot, openssl; fail2ban and python3-systemd for harden) and ufw
  'nginx', 'libnginx-mod-stream', 'certbot', 'fail2ban', 'python3-systemd', 'ufw',
  // the test's ACME server and DNS inside the box; the zone's server and the DNS plugin the wildcard
  // mode uses (present, the panel's switch installs nothing: the box has no network for apt)
  'pebble', 'dnsmasq', 'bind9', 'python3-certbot-dns-rfc2136',
];

const unit = (lines: string[]) => `${lines.join('\n')}\n`;

/** The box's public address on lo, before the services that listen on it or resolve to it. */
const ADDRESS_UNIT = unit([
  '[Unit]', `Description=the box's public address ${BOX_IP} (system test: the container has only lo)`,
  'DefaultDependencies=no', 'Before=network.target nginx.service dnsmasq.service pebble-test.service',
  '[Service]', 'Type=oneshot', 'RemainAfterExit=yes', `ExecStart=/usr/sbin/ip addr replace ${BOX_IP}/32 dev lo`,
  '[Install]', 'WantedBy=multi-user.target',
]);

const PEBBLE_UNIT = unit([
  '[Unit]', 'Description=pebble ACME test server (system test)', 'After=dnsmasq.service relay-test-address.service',
  '[Service]', 'Environment=PEBBLE_VA_NOSLEEP=1 PEBBLE_WFE_NONCEREJECT=0 PEBBLE_AUTHZREUSE=0',
  `ExecStart=/usr/bin/pebble -config ${PEBBLE_DIR}/config.json -dnsserver 127.0.0.1:53 -strict=false`,
  '[Install]', 'WantedBy=multi-user.target',
]);

// every name under the domain resolves to the box; only the DNS-01 challenge's name is forwarded (to bind)
const DNSMASQ_CONF = unit([
  'no-resolv', 'no-hosts', 'listen-address=127.0.0.1', 'bind-interfaces',
  `address=/${BOX_DOMAIN}/${BOX_IP}`, `local=/${BOX_DOMAIN}/`, ...dnsmasqForward(BOX_DOMAIN), 'address=/#/',
]);

const PEBBLE_CONFIG = JSON.stringify({
  pebble: {
    listenAddress: '127.0.0.1:14000', managementListenAddress: '127.0.0.1:15000',
    certificate: `${PEBBLE_DIR}/wfe.pem`, privateKey: `${PEBBLE_DIR}/wfe.key`,
    httpPort: 80, tlsPort: 5001, ocspResponderURL: '', externalAccountBindingRequired: false,
  },
});

/** What the test gives `install --system-config`: ACME from pebble, DNS from dnsmasq; everything else is the production default. */
export const BOX_SYSTEM_CONFIG = {
  acme: { server: 'https://127.0.0.1:14000/dir', caBundle: `${PEBBLE_DIR}/wfe-ca.pem` },
  dns: { servers: ['127.0.0.1'] },
};

async function openssl(args: string[], cwd: string): Promise<void> {
  await run('/usr/bin/openssl', args, { cwd });
}

/** Pebble's Debian package has no certificate for its own HTTPS listener (loopback recipe, pitfall 1). */
async function pebbleCertificates(dir: string): Promise<void> {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await openssl(['req', '-x509', ...ec, '-days', '3650', '-subj', '/CN=pebble-wfe-test-ca', '-keyout', 'wfe-ca.key', '-out', 'wfe-ca.pem'], dir);
  await openssl(['req', ...ec, '-subj', '/CN=localhost', '-keyout', 'wfe.key', '-out', 'wfe.csr'], dir);
  await writeFile(join(dir, 'wfe.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=critical,CA:FALSE\n');
  await openssl(['x509', '-req', '-in', 'wfe.csr', '-CA', 'wfe-ca.pem', '-CAkey', 'wfe-ca.key', '-CAcreateserial', '-days', '3650', '-extfile', 'wfe.ext', '-out', 'wfe.pem'], dir);
  for (const name of await readdir(dir)) await chmod(join(dir, name), 0o644);
}

async function enable(root: string, name: string, text: string): Promise<void> {
  await writeFile(join(root, 'etc/systemd/system', name), text);
  const wants = join(root, 'etc/systemd/system/multi-user.target.wants');
  await mkdir(wants, { recursive: true });
  await symlink(`/etc/systemd/system/${name}`, join(wants, name));
}

/** Builds the root file system in `root` (which must not exist yet); about a minute on 2 cores. The release the
 * operator installs is placed apart (placeRelease), so the releases can be built at the same time. */
export async function buildImage(root: string): Promise<void> {
  // the host's own apt sources (Debian's registry is the one network this machine reaches)
  await run('/usr/bin/mmdebstrap', ['--quiet', '--variant=minbase', `--include=${PACKAGES.join(',')}`, 'bookworm', root, '/etc/apt/sources.list.d/debian.sources'],
    // about a minute alone; the other lanes of `npm test` share the machine meanwhile (one run took over 300 s)
    { maxBuffer: 64 * 1024 * 1024, timeout: 900_000 });
  await writeFile(join(root, 'etc/hostname'), 'relaybox\n');
  // sudo resolves the host name; the box's resolver is its own dnsmasq, as a VPS has its provider's
  await writeFile(join(root, 'etc/hosts'), '127.0.0.1 localhost\n127.0.1.1 relaybox\n');
  await rm(join(root, 'etc/resolv.conf'), { force: true });
  await writeFile(join(root, 'etc/resolv.conf'), 'nameserver 127.0.0.1\n');
  await copyFile(await realpath(process.execPath), join(root, 'usr/local/bin/node'));
  for (const fake of ['chisel', 'authelia']) {
    // their units forbid memory both writable and executable (MemoryDenyWriteExecute, right for the
    // real Go programs), so the node that plays them runs without its JIT
    const script = (await readFile(join(FAKES, fake), 'utf8')).replace(/^#!.*\n/, '#!/usr/local/bin/node --jitless\n');
    await writeFile(join(root, 'usr/local/bin', fake), script, { mode: 0o755 });
  }
  await mkdir(join(root, PEBBLE_DIR.slice(1)), { recursive: true });
  await pebbleCertificates(join(root, PEBBLE_DIR.slice(1)));
  await writeFile(join(root, PEBBLE_DIR.slice(1), 'config.json'), PEBBLE_CONFIG);
  await writeFile(join(root, 'etc/dnsmasq.d/relay-test.conf'), DNSMASQ_CONF);
  await bindInImage(root, BOX_DOMAIN, BOX_IP);
  await enable(root, 'relay-test-address.service', ADDRESS_UNIT);
  await enable(root, 'pebble-test.service', PEBBLE_UNIT);
  await writeFile(join(root, 'root/box-system.json'), JSON.stringify(BOX_SYSTEM_CONFIG));
  // the operator's own certificate, from before relay-panel: install and uninstall must leave it be
  await operatorLineage(root);
  await witnessModule(root, join(root, '..'));
}

/** The tarball the README's install command unpacks, where the operator put it. */
export async function placeRelease(root: string, release: { tarball: string }): Promise<void> {
  await copyFile(release.tarball, join(root, 'root/relay-panel.tar.gz'));
}
