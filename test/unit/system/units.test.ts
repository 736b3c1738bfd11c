import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderAutheliaUnit, renderChiselUnit } from '../../../lib/system/host/units.ts';

const s = suite('systemd unit files');

s('chisel: reverse only, loopback, the authfile, its host key (a stable fingerprint), restarted on failure', () => {
  const unit = renderChiselUnit({ binary: '/usr/local/bin/chisel', port: 9090, authfile: '/etc/chisel/users.json', keyfile: '/etc/chisel/host-key.pem' });
  assert.match(unit, '\nExecStart=/usr/local/bin/chisel server --reverse --host 127.0.0.1 --port 9090 --authfile /etc/chisel/users.json --keyfile /etc/chisel/host-key.pem\n');
  assert.match(unit, '\nRestart=always\n');
  assert.match(unit, '\nWantedBy=multi-user.target\n');
});

s('authelia: its configuration file, no shell in ExecStart', () => {
  const unit = renderAutheliaUnit({ binary: '/usr/local/bin/authelia', config: '/etc/authelia/configuration.yml', dir: '/etc/authelia' });
  assert.match(unit, '\nExecStart=/usr/local/bin/authelia --config /etc/authelia/configuration.yml\n');
  assert.not.match(unit, 'ProtectSystem');
  assert.match(unit, 'Description=Authelia authentication portal (relay-panel)');
});

s('as the panel\'s user, chisel and Authelia get the unprivileged sandbox: no way to gain a privilege, only Authelia\'s directory writable, no W+X memory (Go needs none)', () => {
  const chisel = renderChiselUnit({ binary: '/usr/local/bin/chisel', port: 9090, authfile: '/etc/chisel/users.json', keyfile: '/etc/chisel/host-key.pem', user: 'relay-panel' });
  const authelia = renderAutheliaUnit({ binary: '/usr/local/bin/authelia', config: '/etc/authelia/configuration.yml', dir: '/etc/authelia', user: 'relay-panel' });
  for (const unit of [chisel, authelia]) {
    for (const line of ['User=relay-panel', 'NoNewPrivileges=yes', 'CapabilityBoundingSet=', 'SystemCallFilter=@system-service', 'ProtectSystem=strict', 'RestrictSUIDSGID=yes', 'MemoryDenyWriteExecute=yes', 'UMask=0077']) {
      assert.match(unit, `\n${line}\n`, line);
    }
  }
  assert.not.match(chisel, 'ReadWritePaths');
  assert.match(authelia, '\nReadWritePaths=-/etc/authelia\n');
});

s.run();
