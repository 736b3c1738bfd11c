import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gzipSync } from 'node:zlib';
import { formatUptime, parseActiveState, parseShowProperties, parseSystemdTimestamp, uptimeFromActiveEnter } from '../../../lib/system/systemd/systemd-output.ts';
import { parseJournalLine } from '../../../lib/system/services/journal.ts';
import { certbotFailureSummary, parseCertbotCertificates } from '../../../lib/system/certs/certbot-output.ts';
import { cpuUsagePercent, parseMeminfo, parseProcStat } from '../../../lib/system/stats/proc.ts';
import { parseAuthfilePorts, renderAuthfile } from '../../../lib/system/tunnel-server/authfile.ts';
import { renderAccessRules, renderPortalConfiguration } from '../../../lib/system/auth-portal/portal-files.ts';
import { parseUsersDatabase, updateUsersDatabase } from '../../../lib/system/auth-portal/users-database.ts';
import { checksumMatches, extractTarMember, sha256Hex, unpackExecutable } from '../../../lib/system/pinned/install.ts';
import { certonlyArgs, reloadNginxCommand, renewArgs, shellQuote } from '../../../lib/system/certs/host.ts';
import { parseCaIndex } from '../../../lib/system/pki/openssl-pki.ts';
import { systemConfig, SystemConfigSchema } from '../../../lib/system/config.ts';
import { missingPackages, notRootMessage } from '../../infra/ensure-packages.mjs';
import { parseListeningPorts } from '../../../lib/system/tunnel-server/loopback-listeners.ts';

const s = suite('system parsers and renderers');

s('systemctl: is-active words, show properties, timestamps, uptime', () => {
  assert.is(parseActiveState('active\n'), 'active');
  assert.is(parseActiveState('inactive\n'), 'inactive');
  assert.is(parseActiveState('failed\n'), 'failed');
  assert.is(parseActiveState('activating\n'), 'active');
  assert.is(parseActiveState(''), 'unknown');
  assert.equal(parseShowProperties('NextElapseUSecRealtime=Sat 2026-11-21 12:00:00 UTC\nLastTriggerUSec=n/a\n'), {
    NextElapseUSecRealtime: 'Sat 2026-11-21 12:00:00 UTC',
    LastTriggerUSec: 'n/a',
  });
  assert.is(parseSystemdTimestamp('Sat 2026-11-21 12:00:00 UTC')?.toISOString(), '2026-11-21T12:00:00.000Z');
  assert.is(parseSystemdTimestamp('n/a'), null);
  assert.is(parseSystemdTimestamp(''), null);
  assert.is(formatUptime(59_000), '0m');
  assert.is(formatUptime(3 * 3600_000 + 5 * 60_000), '3h 5m');
  assert.is(formatUptime(2 * 86_400_000 + 4 * 60_000), '2d 0h 4m');
  const now = Date.parse('2026-11-23T15:04:30Z');
  assert.is(uptimeFromActiveEnter('Sat 2026-11-21 12:00:00 UTC\n', 'active', now), '2d 3h 4m');
  assert.is(uptimeFromActiveEnter('', 'active', now), '');
  assert.is(uptimeFromActiveEnter('Sat 2026-11-21 12:00:00 UTC', 'inactive', now), '');
});

s('journal short-iso lines', () => {
  const never = () => {
    throw new Error('stamped lines keep their own time');
  };
  assert.equal(parseJournalLine('2026-11-21T12:00:05+0000 relay nginx[812]: reload: done: ok', never), { timestamp: '2026-11-21T12:00:05.000Z', message: 'reload: done: ok' });
  assert.equal(parseJournalLine('2026-11-21T13:00:05+0100 relay systemd[1]: Started nginx.service.', never), { timestamp: '2026-11-21T12:00:05.000Z', message: 'Started nginx.service.' });
  assert.is(parseJournalLine('-- No entries --', never), null);
  assert.is(parseJournalLine('', never), null);
  assert.equal(parseJournalLine('continuation text', () => Date.UTC(2026, 10, 21, 12, 1)), { timestamp: '2026-11-21T12:01:00.000Z', message: 'continuation text' });
  assert.equal(parseJournalLine('2026-13-45T99:00:05+0000 relay x[1]: bad month', () => Date.UTC(2026, 10, 21))?.timestamp, '2026-11-21T00:00:00.000Z');
});

s('certbot certificates output and failure summary', () => {
  const out = `Saving debug log to /var/log/letsencrypt/letsencrypt.log

- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -
Found the following certs:
  Certificate Name: app.example.test
    Serial Number: 5a1b
    Key Type: ECDSA
    Domains: app.example.test
    Expiry Date: 2031-11-21 23:10:15+00:00 (VALID: 1825 days)
    Certificate Path: /le/live/app.example.test/fullchain.pem
    Private Key Path: /le/live/app.example.test/privkey.pem
  Certificate Name: panel.example.test
    Domains: panel.example.test www.panel.example.test
    Expiry Date: 2026-12-01 00:00:00+00:00 (VALID: 9 days)
    Certificate Path: /le/live/panel.example.test/fullchain.pem
    Private Key Path: /le/live/panel.example.test/privkey.pem
- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -`;
  assert.equal(parseCertbotCertificates(out), [
    { name: 'app.example.test', domains: ['app.example.test'], expiresAt: '2031-11-21T23:10:15.000Z', certificatePath: '/le/live/app.example.test/fullchain.pem', privateKeyPath: '/le/live/app.example.test/privkey.pem' },
    { name: 'panel.example.test', domains: ['panel.example.test', 'www.panel.example.test'], expiresAt: '2026-12-01T00:00:00.000Z', certificatePath: '/le/live/panel.example.test/fullchain.pem', privateKeyPath: '/le/live/panel.example.test/privkey.pem' },
  ]);
  assert.equal(parseCertbotCertificates('No certificates found.\n'), []);
  const failed = `Certbot failed to authenticate some domains (authenticator: webroot).
  Domain: x.unknown.test
  Type:   connection
  Detail: could not resolve URL "http://x.unknown.test/.well-known/acme-challenge/abc"
`;
  assert.is(certbotFailureSummary(failed), 'x.unknown.test: could not resolve URL "http://x.unknown.test/.well-known/acme-challenge/abc"');
});

s('/proc/stat and /proc/meminfo', () => {
  const a = parseProcStat('cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 1 2 3 4\n');
  const b = parseProcStat('cpu  150 0 150 750 150 0 0 0 0 0\n');
  assert.equal(a, { idle: 800, total: 1000 });
  assert.is(cpuUsagePercent(a, b), 50);
  assert.is(cpuUsagePercent(a, a), 0);
  assert.throws(() => parseProcStat('intr 1 2 3'));
  assert.equal(parseMeminfo('MemTotal:       2000 kB\nMemFree:         100 kB\nMemAvailable:    500 kB\n'), { total: 2048000, used: 1536000, free: 512000 });
});

s('chisel authfile grants only reverse loopback ports', () => {
  const text = renderAuthfile({ user: 'relay', password: 'p' }, [8080, 3000, 8080]);
  assert.equal(JSON.parse(text), { 'relay:p': ['^R:127\\.0\\.0\\.1:3000$', '^R:127\\.0\\.0\\.1:8080$'] });
  assert.equal(parseAuthfilePorts(text), [3000, 8080]);
  assert.equal(parseAuthfilePorts('{"u:p": [".*", "^R:127\\\\.0\\\\.0\\\\.1:22$"]}'), [22]);
  assert.equal(JSON.parse(renderAuthfile({ user: 'relay', password: 'p' }, [])), { 'relay:p': [] });
  assert.throws(() => renderAuthfile({ user: 'relay', password: 'p' }, [0]));
});

s('authelia: users database round trip, access rules, configuration', () => {
  const hash = '$2b$12$' + 'b'.repeat(53);
  const users = [{ username: 'bob', displayname: 'Bob', email: 'b@x.io', groups: [], password: hash }, { username: 'al', displayname: 'Al', email: 'a@x.io', groups: ['admins'], password: hash }];
  assert.equal(parseUsersDatabase(updateUsersDatabase(null, users)), [users[1], users[0]]);
  assert.throws(() => updateUsersDatabase(null, [{ ...users[0]!, password: 'plain' }]));
  assert.equal(renderAccessRules([{ fqdn: 'a.x.io', allowedUsers: [] }, { fqdn: 'b.x.io', allowedUsers: ['bob'] }], 'admins'), [
    { domain: ['a.x.io'], policy: 'two_factor' },
    { domain: ['b.x.io'], policy: 'two_factor', subject: ['user:bob', 'group:admins'] },
    { domain: ['b.x.io'], policy: 'deny' },
  ]);
  const cfg = JSON.parse(renderPortalConfiguration({
    domain: 'x.io', httpsPort: 443, listenPort: 9091, adminGroup: 'admins', rules: [],
    secrets: { jwtSecret: 'j', sessionSecret: 's', storageEncryptionKey: 'k' },
    usersPath: '/a/users.yml', storagePath: '/a/db.sqlite3', notifierPath: '/a/n.txt',
  }).replace(/^#.*\n/, ''));
  assert.is(cfg.server.address, 'tcp://127.0.0.1:9091/');
  assert.is(cfg.access_control.default_policy, 'two_factor');
  assert.is(cfg.authentication_backend.file.password.bcrypt.cost, 12);
  assert.equal(cfg.session.cookies, [{ domain: 'x.io', authelia_url: 'https://auth.x.io' }]);
  assert.is(cfg.storage.local.path, '/a/db.sqlite3');
  assert.is(cfg.storage.encryption_key, 'k');
});

s('pinned installs: checksum compare, gzip and tar.gz unpacking', () => {
  const data = Buffer.from('#!/bin/sh\necho hi\n');
  assert.ok(checksumMatches(data, sha256Hex(data)));
  assert.not.ok(checksumMatches(data, '0'.repeat(64)));
  assert.not.ok(checksumMatches(data, 'abc'));
  assert.equal(unpackExecutable(gzipSync(data), 'http://h/chisel_1.9.0_linux_amd64.gz', 'chisel'), data);
  // hand-built ustar archive with one member
  const header = Buffer.alloc(512);
  header.write('dir/authelia-linux-amd64', 0);
  header.write('0000755\0', 100);
  header.write(data.length.toString(8).padStart(11, '0') + '\0', 124);
  header.write('0', 156);
  const tar = Buffer.concat([header, data, Buffer.alloc(512 - data.length), Buffer.alloc(1024)]);
  assert.equal(extractTarMember(tar, 'authelia-linux-amd64'), data);
  assert.throws(() => extractTarMember(tar, 'other'));
});

/** The value after `flag` in argv, asserting the flag is there exactly once. */
function flagValue(argv: string[], flag: string): string | undefined {
  assert.is(argv.filter((a) => a === flag).length, 1, `${flag} once`);
  return argv[argv.indexOf(flag) + 1];
}

s('certbot certonly argv and the deploy hook command', () => {
  const config = systemConfig({ driver: 'host' });
  const argv = certonlyArgs(config, 'app.example.com', 'ops@example.com');
  assert.equal(argv.slice(0, 5), ['certonly', '--webroot', '-w', '/var/www/relay-panel-acme', '-d']);
  assert.ok(argv.includes('--non-interactive') && argv.includes('--agree-tos'));
  assert.ok(argv.includes('--keep-until-expiring'), 'an existing valid certificate is kept');
  assert.is(flagValue(argv, '--server'), 'https://acme-v02.api.letsencrypt.org/directory');
  assert.is(flagValue(argv, '--cert-name'), 'app.example.com');
  assert.is(flagValue(argv, '--deploy-hook'), '/usr/sbin/nginx -c /etc/nginx/nginx.conf -s reload');
  assert.is(flagValue(argv, '--config-dir'), '/etc/relay-panel/letsencrypt');
  assert.is(flagValue(argv, '--work-dir'), '/var/lib/relay-panel-acme');
  assert.is(flagValue(argv, '--logs-dir'), '/var/log/relay-panel-acme');
  assert.is(reloadNginxCommand(config), '/usr/sbin/nginx -c /etc/nginx/nginx.conf -s reload');
  assert.is(shellQuote("a b'c"), `'a b'\\''c'`);
});

s('certbot renew argv: one lineage, forced, no random sleep, the deploy hook, our directories', () => {
  const config = systemConfig({
    driver: 'host',
    nginx: { reloadWith: 'systemctl' },
    acme: { configDir: '/srv/le/config', workDir: '/srv/le/work', logsDir: '/srv/le/logs' },
  });
  const argv = renewArgs(config, 'app.example.com');
  assert.is(argv[0], 'renew');
  assert.is(flagValue(argv, '--cert-name'), 'app.example.com');
  assert.ok(argv.includes('--force-renewal'));
  assert.ok(argv.includes('--no-random-sleep-on-renew'), 'a renewal from the panel must not sleep up to 8 minutes');
  assert.ok(argv.includes('--non-interactive'));
  assert.ok(argv.includes('--no-directory-hooks'), 'the panel reloads after its own renewal: the timer\'s hook would build the map a second time, outside its lock');
  assert.is(flagValue(argv, '--deploy-hook'), '/usr/bin/systemctl reload nginx');
  assert.is(flagValue(argv, '--config-dir'), '/srv/le/config');
  assert.is(flagValue(argv, '--work-dir'), '/srv/le/work');
  assert.is(flagValue(argv, '--logs-dir'), '/srv/le/logs');
});

s('openssl index.txt', () => {
  assert.equal(parseCaIndex('V\t290223231015Z\t\t1000\tunknown\t/CN=admin\nR\t290223231015Z\t261121231015Z,keyCompromise\t1003\tunknown\t/CN=agent:x\n'), [
    { status: 'V', serial: '1000', subject: '/CN=admin' },
    { status: 'R', serial: '1003', subject: '/CN=agent:x' },
  ]);
});

s('system config: {} is the sandbox, {driver: host} has production defaults, strict', () => {
  assert.is(systemConfig({}).driver, 'sandbox');
  const host = systemConfig({ driver: 'host' });
  assert.equal(host.ports, { http: 80, https: 443, ipPanel: 9292, panel: 3100, tunnelServer: 9090, authPortal: 9091 });
  assert.is(host.nginx.sitesAvailable, '/etc/nginx/sites-available');
  assert.match(host.chisel.release.sha256, /^[0-9a-f]{64}$/);
  assert.not.ok(SystemConfigSchema.safeParse({ driver: 'host', bogus: 1 }).success);
  assert.not.ok(SystemConfigSchema.safeParse({ binaries: { nginx: 'nginx' } }).success);
  assert.not.ok(SystemConfigSchema.safeParse({ nginx: { sitesAvailable: '/etc/../x' } }).success);
});

s('/proc/net/tcp and tcp6: listening ports reached from 127.0.0.1, nothing else', () => {
  const tcp = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000   998        0 1 1 0000000000000000 100 0 0 10 0',
    '   1: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 100 0 0 10 0',
    '   2: 0A00000A:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3 1 0000000000000000 100 0 0 10 0',
    '   3: 0100007F:4E21 0100007F:C350 01 00000000:00000000 00:00000000 00000000   998        0 4 1 0000000000000000 20 4 30 10 -1',
  ].join('\n');
  assert.equal(parseListeningPorts(tcp), [8080, 80], 'a listener on 10.0.0.10 and an established connection are not');
  const tcp6 = [
    '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 00000000000000000000000000000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5 1 0000000000000000 100 0 0 10 0',
    '   1: 00000000000000000000000001000000:1F92 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 6 1 0000000000000000 100 0 0 10 0',
  ].join('\n');
  assert.equal(parseListeningPorts(tcp6), [8081], '::1 alone is not reached by 127.0.0.1');
});

s('ensure-packages: names what is missing and the install command', () => {
  assert.equal(missingPackages(() => true), []);
  assert.equal(missingPackages((p) => !p.endsWith('pebble') && !p.endsWith('dnsmasq')), ['pebble', 'dnsmasq']);
  const msg = notRootMessage(['pebble', 'dnsmasq']);
  assert.match(msg, 'Missing programs for the integration, browser and system tests: pebble, dnsmasq');
  assert.match(msg, 'DEBIAN_FRONTEND=noninteractive apt-get install -y nginx libnginx-mod-stream pebble certbot dnsmasq openssl chromium');
  assert.equal(missingPackages((p) => p !== '/usr/bin/chromium'), ['chromium']);
});

s.run();
