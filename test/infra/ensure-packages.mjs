// Makes sure the programs of the integration, browser and system tests are installed (nginx and its stream module, pebble,
// certbot, dnsmasq, openssl, chromium, systemd-nspawn, mmdebstrap, gcc, bind9 and certbot's rfc2136 plugin). As root it installs the missing Debian packages; otherwise it names them
// and the command, and exits 1. Plain JS: it runs before anything is compiled.
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

export const REQUIRED = [
  { pkg: 'nginx', binary: '/usr/sbin/nginx' },
  // TCP and UDP tunnels: nginx's stream module, a package of its own in Debian (not pulled in by nginx)
  { pkg: 'libnginx-mod-stream', binary: '/usr/lib/nginx/modules/ngx_stream_module.so' },
  { pkg: 'pebble', binary: '/usr/bin/pebble' },
  { pkg: 'certbot', binary: '/usr/bin/certbot' },
  { pkg: 'dnsmasq', binary: '/usr/sbin/dnsmasq' },
  { pkg: 'openssl', binary: '/usr/bin/openssl' },
  // test/browser drives Debian's chromium through playwright-core (no browser download).
  { pkg: 'chromium', binary: '/usr/bin/chromium' },
  // test/system boots a Debian 12 made from Debian's packages under a real systemd.
  { pkg: 'systemd-container', binary: '/usr/bin/systemd-nspawn' },
  { pkg: 'mmdebstrap', binary: '/usr/bin/mmdebstrap' },
  // its attack suite builds the module a planted OpenSSL configuration would make root load
  { pkg: 'gcc', binary: '/usr/bin/gcc' },
  // test/integration/local/certs: DNS-01 against an authoritative bind9 that takes RFC 2136
  // updates (tsig-keygen makes its key), answered by certbot's rfc2136 plugin
  { pkg: 'bind9', binary: '/usr/sbin/named' },
  { pkg: 'bind9-utils', binary: '/usr/sbin/tsig-keygen' },
  // a Python module, no program: its package directory
  { pkg: 'python3-certbot-dns-rfc2136', binary: '/usr/lib/python3/dist-packages/certbot_dns_rfc2136' },
];

export const INSTALL_ARGS = ['install', '-y', ...REQUIRED.map((r) => r.pkg)];

export function missingPackages(isPresent = present) {
  return REQUIRED.filter((r) => !isPresent(r.binary)).map((r) => r.pkg);
}

/** What a non-root user is told; pure so it can be tested on a machine that has everything. */
export function notRootMessage(missing) {
  return [
    `Missing programs for the integration, browser and system tests: ${missing.join(', ')}`,
    'Install them as root (Debian/Ubuntu):',
    `  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get ${INSTALL_ARGS.join(' ')}`,
  ].join('\n');
}

// presence, not X_OK: the stream module is a shared object Debian installs 0644
function present(path) {
  try {
    accessSync(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

async function main() {
  const missing = missingPackages();
  if (missing.length === 0) return;
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    console.error(notRootMessage(missing));
    process.exit(1);
  }
  const run = promisify(execFile);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  console.log(`installing ${missing.join(', ')} ...`);
  await run('/usr/bin/apt-get', ['update'], { env, maxBuffer: 64 * 1024 * 1024 });
  await run('/usr/bin/apt-get', INSTALL_ARGS, { env, maxBuffer: 64 * 1024 * 1024 });
  const still = missingPackages();
  if (still.length) {
    console.error(`still missing after apt-get: ${still.join(', ')}`);
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e) => {
    console.error(`ensure-packages: ${e.message}`);
    process.exit(1);
  });
}
