import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPanelSocket, renderPanelUnit } from '../../../lib/install/panel-unit.ts';

// a named suite of its own: uvu's shared default `test` would mix the files a worker runs
const test = suite('the panel systemd unit');

const unit = renderPanelUnit({ user: 'relay-panel', node: '/usr/local/bin/node', server: '/opt/relay-panel/current/server.mjs',
  configFile: '/etc/relay-panel/config.json', writable: ['/etc/relay-panel', '/var/lib/relay-panel'], socket: 'relay-panel.socket' });

test('the panel runs as its user, in production, from the current release, with a read-only system', () => {
  // the release's start script: node's flags, and the startup snapshot when this node made it
  assert.match(unit, '\nExecStart=/opt/relay-panel/current/server-start --config /etc/relay-panel/config.json\n');
  assert.match(unit, '\nEnvironment=RELAY_PANEL_NODE=/usr/local/bin/node\n');
  assert.match(unit, '\nUser=relay-panel\nGroup=relay-panel\n');
  assert.match(unit, '\nEnvironment=NODE_ENV=production\n');
  assert.match(unit, '\nProtectSystem=strict\n');
  assert.match(unit, '\nReadWritePaths=-/etc/relay-panel -/var/lib/relay-panel\n');
});

test('the code cache goes to the cache directory systemd makes for the panel, not into the read-only release', () => {
  assert.match(unit, '\nCacheDirectory=relay-panel\n');
  assert.match(unit, '\nEnvironment=RELAY_PANEL_CODE_CACHE=/var/cache/relay-panel/server.mjs.code-cache\n');
});

test('no way to gain a privilege (the panel reaches root only through the root helper\'s socket) and systemd\'s other locks', () => {
  for (const line of ['NoNewPrivileges=yes', 'CapabilityBoundingSet=', 'SystemCallFilter=@system-service', 'SystemCallArchitectures=native', 'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
    'ProtectKernelTunables=yes', 'ProtectKernelModules=yes', 'ProtectKernelLogs=yes', 'ProtectControlGroups=yes', 'ProtectClock=yes', 'ProtectHostname=yes', 'RestrictNamespaces=yes',
    'RestrictRealtime=yes', 'RestrictSUIDSGID=yes', 'LockPersonality=yes', 'PrivateDevices=yes', 'ProtectHome=yes', 'PrivateTmp=yes', 'UMask=0077']) {
    assert.match(unit, `\n${line}\n`, line);
  }
  // V8's JIT writes code it then runs
  assert.not.match(unit, 'MemoryDenyWriteExecute');
});

test('--user root keeps root\'s powers in a read-only system: it runs the programs itself', () => {
  const root = renderPanelUnit({ user: 'root', node: '/usr/bin/node', server: '/s.mjs', configFile: '/c.json', writable: ['/etc/relay-panel'], socket: 'relay-panel.socket' });
  assert.match(root, '\nProtectSystem=strict\n');
  assert.not.match(root, 'NoNewPrivileges');
  assert.not.match(root, 'CapabilityBoundingSet');
});

test('systemd holds the listening socket: the service needs its socket unit, which listens on the panel\'s loopback port', () => {
  assert.match(unit, '\nRequires=relay-panel.socket\nAfter=relay-panel.socket\n');
  const socket = renderPanelSocket({ host: '127.0.0.1', port: 3100, service: 'relay-panel.service' });
  assert.match(socket, '\n[Socket]\nListenStream=127.0.0.1:3100\nService=relay-panel.service\n');
  assert.match(socket, '\n[Install]\nWantedBy=sockets.target\n');
  assert.match(renderPanelSocket({ host: '::1', port: 3100, service: 'p.service' }), '\nListenStream=[::1]:3100\n');
});

test.run();
