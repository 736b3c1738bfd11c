import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { serviceUser, systemConfig } from '../../../lib/system/config.ts';
import { autheliaUnit } from '../../../lib/system/auth-portal/host.ts';
import { chiselUnit } from '../../../lib/system/tunnel-server/host.ts';
import { renderAutheliaUnit, renderChiselUnit } from '../../../lib/system/systemd/units.ts';

const s = suite('systemd unit files');

const chiselAs = (user?: string | null) =>
  renderChiselUnit({ binary: '/usr/local/bin/chisel', port: 9090, authfile: '/etc/chisel/users.json', keyfile: '/etc/chisel/host-key.pem', user });
const autheliaAs = (user?: string | null) =>
  renderAutheliaUnit({ binary: '/usr/local/bin/authelia', config: '/etc/authelia/configuration.yml', dir: '/etc/authelia', user });
/** The [Service] lines that start with `key=`. */
const lines = (unit: string, key: string) => unit.split('\n').filter((l) => l.startsWith(`${key}=`));

s('chisel: reverse only, loopback, the authfile, its host key (a stable fingerprint), restarted on failure', () => {
  const unit = chiselAs();
  assert.match(unit, '\nExecStart=/usr/local/bin/chisel server --reverse --host 127.0.0.1 --port 9090 --authfile /etc/chisel/users.json --keyfile /etc/chisel/host-key.pem\n');
  assert.match(unit, '\nRestart=always\n');
  assert.match(unit, '\nWantedBy=multi-user.target\n');
  assert.equal(lines(unit, 'User'), [], 'no user: root, as the sandbox driver\'s tests run it');
});

s('authelia: its configuration file, no shell in ExecStart; as root too, what it makes stays closed to others (UMask=0007)', () => {
  const unit = autheliaAs();
  assert.match(unit, '\nExecStart=/usr/local/bin/authelia --config /etc/authelia/configuration.yml\n');
  assert.not.match(unit, 'ProtectSystem');
  assert.match(unit, 'Description=Authelia authentication portal (relay-panel)');
  assert.equal(lines(unit, 'UMask'), ['UMask=0007']);
});

s('each service as its own user: User= and Group= of that user, the unprivileged sandbox, no W+X memory (Go needs none)', () => {
  const chisel = chiselAs('relay-panel-chisel');
  const authelia = autheliaAs('relay-panel-authelia');
  assert.equal([lines(chisel, 'User'), lines(chisel, 'Group')], [['User=relay-panel-chisel'], ['Group=relay-panel-chisel']]);
  assert.equal([lines(authelia, 'User'), lines(authelia, 'Group')], [['User=relay-panel-authelia'], ['Group=relay-panel-authelia']]);
  for (const unit of [chisel, authelia]) {
    for (const line of ['NoNewPrivileges=yes', 'CapabilityBoundingSet=', 'SystemCallFilter=@system-service', 'ProtectSystem=strict', 'RestrictSUIDSGID=yes', 'MemoryDenyWriteExecute=yes']) {
      assert.match(unit, `\n${line}\n`, line);
    }
  }
});

s('chisel only reads: nothing writable, files private to its user; Authelia writes its directory only, and shares what it makes there with its group (UMask=0007)', () => {
  const chisel = chiselAs('relay-panel-chisel');
  const authelia = autheliaAs('relay-panel-authelia');
  assert.equal(lines(chisel, 'ReadWritePaths'), []);
  assert.equal(lines(chisel, 'UMask'), ['UMask=0077']);
  assert.equal(lines(authelia, 'ReadWritePaths'), ['ReadWritePaths=-/etc/authelia']);
  assert.equal(lines(authelia, 'UMask'), ['UMask=0007'], 'one UMask line, the shared one');
});

s('serviceUser: a service\'s own user, else the panel\'s (runAs), else root', () => {
  const own = systemConfig({ systemd: { runAs: 'relay-panel', tunnelUser: 'relay-panel-chisel', portalUser: 'relay-panel-authelia' } });
  assert.equal([serviceUser(own, 'tunnel-server'), serviceUser(own, 'auth-portal')], ['relay-panel-chisel', 'relay-panel-authelia']);
  const panels = systemConfig({ systemd: { runAs: 'relay-panel' } });
  assert.equal([serviceUser(panels, 'tunnel-server'), serviceUser(panels, 'auth-portal')], ['relay-panel', 'relay-panel']);
  const root = systemConfig({});
  assert.equal([root.systemd.tunnelUser, root.systemd.portalUser], [null, null]);
  assert.equal([serviceUser(root, 'tunnel-server'), serviceUser(root, 'auth-portal')], [null, null]);
  for (const bad of ['Relay', 'relay panel', '-chisel', 'x'.repeat(33), '../root']) {
    assert.throws(() => systemConfig({ systemd: { tunnelUser: bad } }), /tunnelUser/, bad);
    assert.throws(() => systemConfig({ systemd: { portalUser: bad } }), /portalUser/, bad);
  }
});

s('chiselUnit and autheliaUnit, the units the installer writes and provisioning compares, come from the configuration alone', () => {
  const system = systemConfig({
    binaries: { chisel: '/opt/bin/chisel', authelia: '/opt/bin/authelia' },
    ports: { tunnelServer: 9190 },
    chisel: { dir: '/srv/chisel' },
    authelia: { dir: '/srv/authelia' },
    systemd: { runAs: 'relay-panel', tunnelUser: 'relay-panel-chisel', portalUser: 'relay-panel-authelia' },
  });
  assert.is(chiselUnit(system), renderChiselUnit({ binary: '/opt/bin/chisel', port: 9190, authfile: '/srv/chisel/users.json', keyfile: '/srv/chisel/host-key.pem', user: 'relay-panel-chisel' }));
  assert.is(autheliaUnit(system), renderAutheliaUnit({ binary: '/opt/bin/authelia', config: '/srv/authelia/configuration.yml', dir: '/srv/authelia', user: 'relay-panel-authelia' }));
  // without users of their own, both run as the panel's user, as before
  const older = systemConfig({ systemd: { runAs: 'relay-panel' } });
  assert.equal([lines(chiselUnit(older), 'User'), lines(autheliaUnit(older), 'User')], [['User=relay-panel'], ['User=relay-panel']]);
});

s.run();
