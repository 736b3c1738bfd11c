// The box's authoritative DNS for its domain, for the wildcard mode's DNS-01: Debian's own named
// (bind9) with a configuration of the test's, on 127.0.0.1:5353 only (dnsmasq keeps port 53), one
// zone taking RFC 2136 updates signed with a TSIG key made at image build. dnsmasq forwards only
// `_acme-challenge.<domain>` here, so pebble reads the challenge from bind and every other answer
// stays dnsmasq's. named logs its queries (to the journal), which shows pebble looked here.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tsigSecret, zoneText } from '../helpers/bind-zone-text.ts';

const run = promisify(execFile);

export const BIND_PORT = 5353;
export const BIND_KEY_NAME = 'relay-test-key';
/** Where the key lies in the image: root's and bind's group's, as named reads it. */
const KEY_FILE = 'etc/bind/relay-test.key';

/** dnsmasq's lines for the challenge name: more specific than its `local=/<domain>/`, so only this name goes to bind. */
export function dnsmasqForward(domain: string): string[] {
  // no cache: a renewal's new TXT values must not meet the last order's, kept for their TTL
  return [`server=/_acme-challenge.${domain}/127.0.0.1#${BIND_PORT}`, 'cache-size=0'];
}

// Debian's named.service runs `named -f -u bind` on /etc/bind/named.conf; rndc's default control
// channel stays (the unit stops named with `rndc stop`). The zone lives in /var/lib/bind, which
// bind's group may write: named keeps the journal of updates beside the zone file.
const namedConf = (domain: string) => `// relay-panel system test: ${domain} for DNS-01, updates only with the test's TSIG key
include "/${KEY_FILE}";
options {
    directory "/var/cache/bind";
    listen-on port ${BIND_PORT} { 127.0.0.1; };
    listen-on-v6 { none; };
    recursion no; dnssec-validation no; allow-transfer { none; }; querylog yes;
};
zone "${domain}" { type primary; file "/var/lib/bind/${domain}.zone"; allow-update { key "${BIND_KEY_NAME}"; }; };
`;

const chroot = (root: string, argv: string[]) => run('/usr/sbin/chroot', [root, ...argv]);

/** Writes named's configuration, the zone and a fresh TSIG key into the image (bind9 installed there). */
export async function bindInImage(root: string, domain: string, ip: string): Promise<void> {
  const key = (await chroot(root, ['/usr/sbin/tsig-keygen', '-a', 'hmac-sha256', BIND_KEY_NAME])).stdout;
  await writeFile(join(root, KEY_FILE), key, { mode: 0o640 });
  await writeFile(join(root, 'etc/bind/named.conf'), namedConf(domain));
  await writeFile(join(root, 'var/lib/bind', `${domain}.zone`), zoneText(domain, ip));
  await chroot(root, ['/bin/chown', 'root:bind', `/${KEY_FILE}`]);
  await chroot(root, ['/bin/chown', 'bind:bind', `/var/lib/bind/${domain}.zone`]);
}

/** The TSIG key's secret (base64), read from the image root as certbot's plugin is given it. */
export async function bindSecret(root: string): Promise<string> {
  const key = await readFile(join(root, KEY_FILE), 'utf8');
  return tsigSecret(key, KEY_FILE);
}
