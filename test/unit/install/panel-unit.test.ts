import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPanelSocket, renderPanelUnit } from '../../../lib/install/panel-unit.ts';

// a named suite of its own: uvu's shared default `test` would mix the files a worker runs
const test = suite('the panel systemd unit');

const unit = renderPanelUnit({ user: 'relay-panel', node: '/usr/local/bin/node', server: '/opt/relay-panel/current/server.mjs',
  configFile: '/etc/relay-panel/config.json', writable: ['/etc/relay-panel', '/var/lib/relay-panel'], socket: 'relay-panel.socket' });

test('the panel runs as its user, in production, from the current release, with a read-only system', () => {
  assert.match(unit, '\nExecStart=/usr/local/bin/node --max-semi-space-size=4 /opt/relay-panel/current/server.mjs --config /etc/relay-panel/config.json\n');
  assert.match(unit, '\nUser=relay-panel\nGroup=relay-panel\n');
  assert.match(unit, '\nEnvironment=NODE_ENV=production\n');
  assert.match(unit, '\nProtectSystem=strict\n');
  assert.match(unit, '\nReadWritePaths=-/etc/relay-panel -/var/lib/relay-panel\n');
});

test('the code cache goes to the cache directory systemd makes for the panel, not into the read-only release', () => {
  assert.match(unit, '\nCacheDirectory=relay-panel\n');
  assert.match(unit, '\nEnvironment=RELAY_PANEL_CODE_CACHE=/var/cache/relay-panel/server.mjs.code-cache\n');
});

test('nothing that sets no-new-privileges for a non-root service: sudo must stay usable', () => {
  for (const option of ['NoNewPrivileges', 'PrivateDevices', 'ProtectKernelTunables', 'ProtectKernelModules', 'ProtectKernelLogs', 'ProtectClock',
    'RestrictAddressFamilies', 'RestrictNamespaces', 'RestrictRealtime', 'RestrictSUIDSGID', 'LockPersonality', 'SystemCallFilter',
    'SystemCallArchitectures', 'MemoryDenyWriteExecute', 'DynamicUser']) {
    assert.not.match(unit, new RegExp(`^${option}=`, 'm'), option);
  }
});

test('systemd holds the listening socket: the service needs its socket unit, which listens on the panel\'s loopback port', () => {
  assert.match(unit, '\nRequires=relay-panel.socket\nAfter=relay-panel.socket\n');
  const socket = renderPanelSocket({ host: '127.0.0.1', port: 3100, service: 'relay-panel.service' });
  assert.match(socket, '\n[Socket]\nListenStream=127.0.0.1:3100\nService=relay-panel.service\n');
  assert.match(socket, '\n[Install]\nWantedBy=sockets.target\n');
  assert.match(renderPanelSocket({ host: '::1', port: 3100, service: 'p.service' }), '\nListenStream=[::1]:3100\n');
});

test.run();
