// The panel's own renewal timer and service (lib/system/certs/renew-units.ts): what they run, as
// whom, in which sandbox (that systemd itself reads them without a complaint:
// test/integration/local/system/renew-units-verify.test.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { systemConfig, type SystemConfigInput } from '../../../lib/system/config.ts';
import { execWord, renderRenewService, renderRenewTimer, renewUnitFiles, renewUnitNames } from '../../../lib/system/certs/renew-units.ts';

const s = suite("the panel's renewal units");
const box = (over: SystemConfigInput = {}) => systemConfig({ driver: 'host', systemd: { runAs: 'relay-panel' }, ...over });
const lines = (text: string) => text.split('\n');

s('the defaults: the panel\'s own directories and timer, none of Debian\'s', () => {
  const { acme } = systemConfig();
  assert.equal([acme.configDir, acme.workDir, acme.logsDir, acme.webroot, acme.renewTimer],
    ['/etc/relay-panel/letsencrypt', '/var/lib/relay-panel-acme', '/var/log/relay-panel-acme', '/var/www/relay-panel-acme', 'relay-panel-renew.timer']);
  assert.throws(() => systemConfig({ acme: { renewTimer: 'relay-panel-renew.service' } }), /must name a \.timer unit/);
});

s('names: the timer of config.acme.renewTimer starts the service of its name, both in the unit directory', () => {
  assert.equal(renewUnitNames(box()), { timer: 'relay-panel-renew.timer', service: 'relay-panel-renew.service' });
  assert.equal(renewUnitFiles(box({ systemd: { runAs: 'relay-panel', unitDir: '/run/units' } })).map((f) => [f.name, f.path]),
    [['relay-panel-renew.service', '/run/units/relay-panel-renew.service'], ['relay-panel-renew.timer', '/run/units/relay-panel-renew.timer']]);
  assert.equal(renewUnitNames(box({ acme: { renewTimer: 'acme-renew.timer' } })).service, 'acme-renew.service');
});

s('Debian\'s certbot.timer is never the panel\'s (a stored configuration of an earlier release still names it)', () => {
  assert.throws(() => renewUnitFiles(box({ acme: { renewTimer: 'certbot.timer' } })), /Debian's certbot\.timer: the panel's renewals need a timer of their own/);
});

s('the service: oneshot certbot renew of the panel\'s directories as the panel\'s user, in the unprivileged sandbox with the four ACME paths writable', () => {
  const unit = renderRenewService(box({ binaries: { certbot: '/usr/bin/certbot' } }));
  assert.ok(lines(unit).includes('Type=oneshot'));
  assert.ok(lines(unit).includes('ExecStart=/usr/bin/certbot renew --non-interactive --no-random-sleep-on-renew --config-dir /etc/relay-panel/letsencrypt --work-dir /var/lib/relay-panel-acme --logs-dir /var/log/relay-panel-acme'), unit);
  for (const line of ['User=relay-panel', 'Group=relay-panel', 'NoNewPrivileges=yes', 'CapabilityBoundingSet=', 'ProtectSystem=strict', 'ProtectHome=yes', 'RestrictSUIDSGID=yes', 'UMask=0077',
    'ReadWritePaths=-/etc/relay-panel/letsencrypt -/var/lib/relay-panel-acme -/var/log/relay-panel-acme -/var/www/relay-panel-acme']) {
    assert.ok(lines(unit).includes(line), line);
  }
  // the deploy hook runs node (root-call), whose JIT needs W+X memory
  assert.not.match(unit, 'MemoryDenyWriteExecute');
  for (const debian of ['/etc/letsencrypt', '/var/lib/letsencrypt', '/var/log/letsencrypt', '/var/www/html']) assert.not.match(unit, debian);
  assert.not.match(unit, '[Install]', 'started by its timer only');
  assert.not.match(unit, 'REQUESTS_CA_BUNDLE');
});

s('the service: REQUESTS_CA_BUNDLE when acme.caBundle is set; specifiers and blanks are escaped for systemd', () => {
  const unit = renderRenewService(box({ acme: { caBundle: '/etc/relay-panel/acme ca%.pem', logsDir: '/var/log/acme$x' } }));
  assert.ok(lines(unit).includes('Environment="REQUESTS_CA_BUNDLE=/etc/relay-panel/acme ca%%.pem"'), unit);
  assert.match(unit, '--logs-dir "/var/log/acme$$x"');
  assert.is(execWord('/a b/"c"\\d'), '"/a b/\\"c\\"\\\\d"');
  assert.is(execWord('/usr/bin/certbot'), '/usr/bin/certbot');
});

s('a panel run as root (runAs null): the service runs as root like Debian\'s certbot.service, with no way to gain more', () => {
  const unit = renderRenewService(systemConfig({ driver: 'host' }));
  assert.not.match(unit, 'User=');
  assert.ok(lines(unit).includes('NoNewPrivileges=yes'));
  assert.ok(lines(unit).includes('PrivateTmp=yes'));
  assert.not.match(unit, 'ProtectSystem', 'root writes wherever its hooks need (nginx\'s pid and log)');
});

s('the timer: twice a day at a random moment, runs missed while off at boot, enabled under timers.target', () => {
  const timer = lines(renderRenewTimer(box()));
  for (const line of ['OnCalendar=*-*-* 00,12:00:00', 'RandomizedDelaySec=43200', 'Persistent=true', 'Unit=relay-panel-renew.service', 'WantedBy=timers.target']) {
    assert.ok(timer.includes(line), line);
  }
});

s.run();
