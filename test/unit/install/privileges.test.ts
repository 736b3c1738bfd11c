// The root helper's units and launcher as the installer writes them (the booted box runs them: test/system).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderRootCallLauncher, renderRootHelperService, renderRootHelperSocket } from '../../../lib/install/privileges.ts';

const test = suite('installer privileges: the root helper\'s socket, service and launcher');

test('the socket is root\'s with the panel\'s group, 0660: the panel may connect, no other user', () => {
  const socket = renderRootHelperSocket({ socket: '/run/relay-panel-root.sock', group: 'relay-panel' });
  assert.match(socket, '\n[Socket]\nListenStream=/run/relay-panel-root.sock\nSocketUser=root\nSocketGroup=relay-panel\nSocketMode=0660\n');
  assert.match(socket, '\n[Install]\nWantedBy=sockets.target\n');
});

test('the service runs the current bundle\'s root-helper with the root-owned configuration, started by its socket only', () => {
  const service = renderRootHelperService({ node: '/usr/local/bin/node', server: '/opt/relay-panel/current/server.mjs', config: '/opt/relay-panel/root-helper.json' });
  assert.match(service, '\nExecStart=/usr/local/bin/node /opt/relay-panel/current/server.mjs root-helper --config /opt/relay-panel/root-helper.json\n');
  assert.match(service, '\nRequires=relay-panel-root.socket\nAfter=relay-panel-root.socket\n');
  assert.not.match(service, '[Install]');
  assert.not.match(service, /^User=/m);
  assert.match(service, '\nNoNewPrivileges=yes\n');
  assert.match(service, '\nRestart=on-failure\n');
});

test('the service may write only the vhost, route and stream directories, root\'s TLS copies and what nginx -t writes, with the capabilities nginx -t and the copies need', () => {
  const nginx = { sitesAvailable: '/srv/ngx/sites-available', sitesEnabled: '/srv/ngx/sites-enabled', streamsDir: null, tlsDir: '/srv/ngx/relay-panel-tls', errorLog: '/srv/ngx/logs/error.log' };
  const service = renderRootHelperService({ node: '/usr/local/bin/node', server: '/opt/relay-panel/current/server.mjs', config: '/opt/relay-panel/root-helper.json', nginx });
  assert.match(service, '\nProtectSystem=strict\n');
  assert.match(service, '\nReadWritePaths=-/srv/ngx/sites-available -/srv/ngx/sites-enabled -/srv/ngx/relay-routes -/srv/ngx/relay-streams -/srv/ngx/relay-panel-tls -/srv/ngx/logs -/var/log/nginx -/var/lib/nginx /run\n');
  assert.match(service, '\nReadOnlyPaths=-/run/systemd\n');
  assert.match(service, '\nCapabilityBoundingSet=CAP_NET_BIND_SERVICE CAP_DAC_OVERRIDE CAP_DAC_READ_SEARCH CAP_CHOWN CAP_FOWNER\n');
  assert.match(service, '\nSystemCallFilter=@system-service\nSystemCallErrorNumber=EPERM\n');
  assert.is(service.match(/^ReadWritePaths=/gm)?.length, 1);
  // Debian's layout when the installer names none
  const debian = renderRootHelperService({ node: '/usr/local/bin/node', server: '/s.mjs', config: '/c.json' });
  assert.match(debian, '\nReadWritePaths=-/etc/nginx/sites-available -/etc/nginx/sites-enabled -/etc/nginx/relay-routes -/etc/nginx/relay-streams -/etc/nginx/relay-panel-tls -/var/log/nginx -/var/lib/nginx /run\n');
});

test('root-call hands its arguments on unchanged, never through a shell word split', () => {
  const script = renderRootCallLauncher('/usr/local/bin/node', '/opt/relay-panel/current/server.mjs', '/run/relay-panel-root.sock');
  assert.ok(script.startsWith('#!/bin/sh\n'));
  assert.match(script, '\nexec /usr/local/bin/node /opt/relay-panel/current/server.mjs root-call --socket /run/relay-panel-root.sock "$@"\n');
});

test.run();
