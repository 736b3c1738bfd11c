import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { publicLocations } from '../../../lib/http/public-locations.ts';
import { isSecretPath, renderVhost, SECRET_PATH_PREFIXES, vhostName, type TemplateContext } from '../../../lib/system/proxy/templates.ts';
import type { VhostSpec } from '../../../lib/system/types.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../helpers/template-context.ts';
import { largestBody } from '../../../lib/upload-refusals.ts';
import { SITE_UPLOAD_LIMITS } from '../../../lib/upload-limits.ts';

const s = suite('nginx vhost templates');
const ctx: TemplateContext = SAMPLE_TEMPLATE_CONTEXT;
const render = (spec: VhostSpec, c: TemplateContext = ctx) => renderVhost(spec, c);
const listens = (text: string) => [...text.matchAll(/listen ([^;]+);/g)].map((m) => m[1]);

s('every listen names the address; HTTP servers carry the ACME webroot and redirect', () => {
  const specs: VhostSpec[] = [
    { kind: 'panel', fqdn: 'panel.example.com' },
    { kind: 'auth-portal', fqdn: 'auth.example.com' },
    { kind: 'tunnel-server', fqdn: 'tunnel.example.com' },
    { kind: 'app', fqdn: 'app.example.com', port: 8001 },
    { kind: 'site', fqdn: 'blog.example.com', root: '/srv/sites/1', spaMode: false, protected: false },
  ];
  for (const spec of specs) {
    const text = render(spec);
    assert.equal(listens(text), ['127.0.0.1:80', '127.0.0.1:443 ssl'], spec.kind);
    assert.match(text, 'location ^~ /.well-known/acme-challenge/ {\n        root "/var/www/relay-panel-acme";');
    assert.match(text, 'return 301 https://$host$request_uri;');
    assert.match(text, 'ssl_protocols TLSv1.2 TLSv1.3;');
    assert.match(text, `ssl_certificate "/le/live/${(spec as { fqdn: string }).fqdn}/fullchain.pem";`);
  }
  assert.match(render(specs[0]!, { ...ctx, ports: { ...ctx.ports, https: 8443 } }), 'return 301 https://$host:8443$request_uri;');
});

s('ip panel: own port, self-signed cert, client CA + CRL, 495/496 help page, no HTTP server', () => {
  const text = render({ kind: 'ip-panel' });
  assert.equal(listens(text), ['127.0.0.1:9292 ssl default_server']);
  assert.match(text, 'ssl_certificate "/self/ip.pem";');
  assert.match(text, 'ssl_client_certificate "/pki/ca.pem";');
  assert.match(text, 'ssl_crl "/pki/crl.pem";');
  assert.match(text, 'error_page 496 =496 /relay-mtls-help.html;');
  assert.match(text, 'if ($ssl_client_verify != SUCCESS) {\n            return 496;');
  assert.not.match(text, 'acme-challenge');
});

s('default server: 80 and 443 with default_server, its own self-signed certificate, a plain 404, nothing logged', () => {
  const text = render({ kind: 'default' });
  assert.is(vhostName({ kind: 'default' }), 'relay-default.conf');
  assert.equal(listens(text), ['127.0.0.1:80 default_server', '127.0.0.1:443 ssl default_server']);
  assert.match(text, 'ssl_certificate "/self/default.pem";');
  assert.match(text, 'ssl_certificate_key "/self/default.key";');
  assert.not.match(text, '/le/');
  // certbot's challenge for a name that has no vhost yet still reaches the webroot
  assert.match(text, 'location ^~ /.well-known/acme-challenge/ {\n        root "/var/www/relay-panel-acme";');
  assert.is(text.match(/return 404 "Not found\\n";/g)?.length, 2);
  assert.not.match(text, 'proxy_pass');
  assert.not.match(text, 'return 301');
  assert.is(text.match(/access_log off;\n    error_log \/dev\/null;/g)?.length, 2, 'both servers log nothing');
});

s('panel locations set X-SSL-* themselves and clear other client-sent X-SSL-* names', () => {
  const text = render({ kind: 'panel', fqdn: 'panel.example.com' });
  assert.match(text, 'proxy_set_header X-SSL-Client-Verify $ssl_client_verify;');
  assert.match(text, 'proxy_set_header X-SSL-Client-DN $ssl_client_s_dn;');
  assert.match(text, 'proxy_set_header X-SSL-Client-Serial $ssl_client_serial;');
  assert.match(text, 'proxy_set_header X-SSL-Client-Cert "";');
  assert.match(text, 'proxy_pass http://127.0.0.1:3100;');
  // every proxy_pass location carries the identity headers (proxy_set_header is not inherited piecemeal)
  const locations = text.split('location ').slice(1).filter((l) => l.includes('proxy_pass'));
  assert.is(locations.length, 6, 'three public locations, the secret /invite/ and ticket ids, and /');
  for (const l of locations) assert.match(l, 'X-SSL-Client-Verify $ssl_client_verify');
  assert.match(text, 'location = /api/health {');
  assert.match(text, 'location = /api/enroll {');
  assert.match(text, 'location ^~ /api/invite/ {');
});

// Buffered, nginx read a whole upload before the panel could refuse it at its limit.
s("panel locations stream bodies through, and nginx's body limit lies above the panel's own", () => {
  for (const spec of [{ kind: 'ip-panel' }, { kind: 'panel', fqdn: 'panel.example.com' }] as const) {
    const locations = render(spec).split('location ').slice(1).filter((l) => l.includes('proxy_pass'));
    assert.ok(locations.length > 0);
    for (const l of locations) {
      assert.match(l, 'proxy_request_buffering off;');
      const limit = Number(/client_max_body_size (\d+);/.exec(l)?.[1]);
      assert.ok(limit > largestBody(SITE_UPLOAD_LIMITS) && limit <= largestBody(SITE_UPLOAD_LIMITS) + 4 * 1024 * 1024, `client_max_body_size ${limit}`);
    }
  }
});

s('panel: foreign or failed certificates pass the handshake; only the given public locations skip the 496', () => {
  const text = render({ kind: 'panel', fqdn: 'panel.example.com' });
  assert.match(text, 'ssl_verify_client optional_no_ca;');
  const opened = [...text.matchAll(/location (=|\^~) (\/api\/\S*) \{/g)].map((m) => `${m[1]} ${m[2]}`);
  assert.equal(opened, ['= /api/health', '= /api/enroll', '^~ /api/invite/']);
  const closed = render({ kind: 'panel', fqdn: 'panel.example.com' }, { ...ctx, publicLocations: { exact: [], prefix: [] } });
  assert.not.match(closed, '/api/health');
  assert.throws(() => render({ kind: 'ip-panel' }, { ...ctx, publicLocations: { exact: ['/api/x;\n}'], prefix: [] } }), /Invalid public location/);
});

/** The body of the location that opens with `opening` (its lines up to the closing brace at the same depth). */
function locationBody(text: string, opening: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === opening);
  assert.ok(start >= 0, `no ${opening}`);
  const depth = lines[start]!.search(/\S/);
  const end = lines.findIndex((l, i) => i > start && l.search(/\S/) === depth && l.trim() === '}');
  return lines.slice(start + 1, end).join('\n');
}

const UNLOG_IF = 'if ($request_uri ~ "^(?:/invite/|/api/invite/|/api/tickets/[0-9A-Fa-f]+(?:\\?|$))") {';

s('panel vhosts: requests carrying an invitation token are in neither nginx log; the others keep the default logs', () => {
  const real = { ...ctx, publicLocations: publicLocations(routes) };
  for (const spec of [{ kind: 'ip-panel' }, { kind: 'panel', fqdn: 'panel.example.com' }] as const) {
    const text = render(spec, real);
    for (const secret of ['/invite/', '/api/invite/']) {
      const body = locationBody(text, `location ^~ ${secret} {`);
      assert.match(body, /^\s+access_log off;\n\s+error_log \/dev\/null;/, `${spec.kind} ${secret}`);
      assert.match(body, 'proxy_pass http://127.0.0.1:3100;');
      assert.not.match(body, '$ssl_client_verify != SUCCESS', `${secret} stays public`);
    }
    const tickets = locationBody(text, 'location ~ "^/api/tickets/[0-9A-Fa-f]+$" {');
    assert.match(tickets, /^\s+access_log off;\n\s+error_log \/dev\/null;\n\s+if \(\$ssl_client_verify != SUCCESS\) \{\n\s+return 496;/);
    // the help page answers 495/496 for any path: its log line would carry the original request line
    assert.match(locationBody(text, 'location = /relay-mtls-help.html {'), `${UNLOG_IF}\n            access_log off;`);
    for (const logged of ['location = /api/health {', 'location = /api/enroll {', 'location ^~ /assets/ {', 'location / {']) {
      assert.not.match(locationBody(text.slice(text.lastIndexOf('server {')), logged), /access_log|error_log/, `${spec.kind} ${logged}`);
    }
  }
  const redirect = render({ kind: 'panel', fqdn: 'panel.example.com' }, real).split('server {')[1]!;
  assert.match(locationBody(redirect, 'location / {'), `${UNLOG_IF}\n            access_log off;\n        }\n        return 301`);
  for (const spec of [{ kind: 'auth-portal', fqdn: 'auth.example.com' }, { kind: 'app', fqdn: 'app.example.com', port: 8001 }] as const) {
    assert.not.match(render(spec, real), /access_log|error_log/, spec.kind);
  }
});

s('a secret prefix that is not public still gets its unlogged location, behind the certificate check', () => {
  const text = render({ kind: 'panel', fqdn: 'panel.example.com' }, { ...ctx, publicLocations: { exact: [], prefix: [] } });
  for (const secret of SECRET_PATH_PREFIXES) {
    const body = locationBody(text, `location ^~ ${secret} {`);
    assert.match(body, 'access_log off;');
    assert.match(body, 'if ($ssl_client_verify != SUCCESS) {\n            return 496;');
  }
});

s('every route with a credential in its path is a secret path; no route without one is', () => {
  // the parameter names the audit log redacts; a sample value of the shape the panel issues
  const credential = /^:\w*(token|ticket|secret|password|key)\w*$/i;
  const sample = (path: string, value: (param: string) => string) => path.split('/').map((part) => (part.startsWith(':') ? value(part) : part)).join('/');
  const secretRoutes = routes.filter((r) => r.path.split('/').some((part) => credential.test(part)));
  assert.equal([...new Set(secretRoutes.map((r) => r.path))].sort(), ['/api/invite/:token', '/api/invite/:token/accept', '/api/tickets/:ticketId']);
  for (const { path } of secretRoutes) assert.ok(isSecretPath(sample(path, () => '0a1b2c3d')), path);
  for (const { path } of routes.filter((r) => !secretRoutes.includes(r))) {
    assert.not.ok(isSecretPath(sample(path, (param) => param.slice(1))), `${path} keeps its log lines`);
  }
});

s('auth portal and tunnel server proxy to their loopback ports; tunnel keeps WebSockets open', () => {
  assert.match(render({ kind: 'auth-portal', fqdn: 'auth.example.com' }), 'proxy_pass http://127.0.0.1:9091;');
  const tunnel = render({ kind: 'tunnel-server', fqdn: 'tunnel.example.com' });
  assert.match(tunnel, 'proxy_pass http://127.0.0.1:9090;');
  assert.match(tunnel, 'proxy_set_header Upgrade $http_upgrade;');
  assert.match(tunnel, 'proxy_read_timeout 86400s;');
});

s('app vhost: websocket upgrade, auth_request, portal redirect on 401, Remote-* from the portal', () => {
  const text = render({ kind: 'app', fqdn: 'app.example.com', port: 8001 });
  assert.match(text, 'proxy_pass http://127.0.0.1:8001;');
  assert.match(text, 'proxy_set_header Upgrade $http_upgrade;');
  assert.match(text, 'auth_request /internal/relay-authz;');
  assert.match(text, 'proxy_pass http://127.0.0.1:9091/api/authz/auth-request;');
  // Authelia 4.38: the redirect is the authz answer's Location, which carries the escaped URL
  assert.match(text, 'auth_request_set $relay_redirection_url $upstream_http_location;');
  assert.match(text, 'error_page 401 =302 $relay_redirection_url;');
  assert.not.match(text, '?rd=');
  for (const h of ['Remote-User', 'Remote-Groups', 'Remote-Name', 'Remote-Email']) assert.match(text, new RegExp(`proxy_set_header ${h} \\$relay_remote_`));
});

s('site vhost: root, SPA fallback only in spaMode, portal only when protected, dot files denied', () => {
  const base = { kind: 'site' as const, fqdn: 'docs.example.com', root: '/srv/sites/abc' };
  const plain = render({ ...base, spaMode: false, protected: false });
  assert.match(plain, 'root "/srv/sites/abc";');
  assert.match(plain, 'try_files $uri $uri/ =404;');
  assert.not.match(plain, 'auth_request');
  assert.match(plain, 'location ~ /\\. {\n        deny all;');
  const spa = render({ ...base, spaMode: true, protected: true });
  assert.match(spa, 'try_files $uri $uri/ /index.html;');
  assert.match(spa, 'auth_request /internal/relay-authz;');
});

s('app, auth portal and tunnel server vhosts drop client-sent X-SSL-* headers; only panel vhosts set them', () => {
  for (const spec of [{ kind: 'app', fqdn: 'app.example.com', port: 8001 }, { kind: 'auth-portal', fqdn: 'auth.example.com' }, { kind: 'tunnel-server', fqdn: 'tunnel.example.com' }] as const) {
    const text = render(spec);
    for (const h of ['X-SSL-Client-Verify', 'X-SSL-Client-DN', 'X-SSL-Client-Serial']) assert.match(text, `proxy_set_header ${h} "";`, `${spec.kind} ${h}`);
    assert.not.match(text, '$ssl_client_verify', spec.kind);
  }
});

s('names are stable and unsafe input is refused', () => {
  assert.is(vhostName({ kind: 'app', fqdn: 'app.example.com', port: 1 }), 'relay-app-app.example.com.conf');
  assert.is(vhostName({ kind: 'ip-panel' }), 'relay-ip-panel.conf');
  assert.throws(() => vhostName({ kind: 'app', fqdn: '../etc/passwd', port: 1 }));
  assert.throws(() => render({ kind: 'app', fqdn: 'x.example.com;', port: 1 }));
  assert.throws(() => render({ kind: 'app', fqdn: 'x.example.com', port: 70000 }));
  assert.throws(() => render({ kind: 'site', fqdn: 'x.example.com', root: '/srv/../etc', spaMode: false, protected: false }));
  assert.throws(() => render({ kind: 'site', fqdn: 'x.example.com', root: '/srv/x"; include /etc', spaMode: false, protected: false }));
});

s('traffic log: tunnel and site vhosts define their own JSON format below the header and send it over syslog to the loopback port; none without a port', () => {
  const withPort = { ...ctx, trafficPort: 3109 };
  for (const [spec, key] of [
    [{ kind: 'app', fqdn: 'app-1.example.com', port: 8080 }, 'app:app-1.example.com'],
    [{ kind: 'site', fqdn: 'docs.example.com', root: '/var/www/relay-sites/x', spaMode: false, protected: false }, 'site:docs.example.com'],
  ] as Array<[VhostSpec, string]>) {
    const text = render(spec, withPort);
    const lines = text.split('\n');
    assert.match(lines[0]!, /^# managed by relay-panel/);
    const name = `relay_traffic_${key.replace(':', '_').replace(/[.-]/g, '_')}`;
    assert.is(lines[1], `log_format ${name} escape=json '{"v":"${key}","s":$status,"in":$request_length,"out":$bytes_sent,"t":$request_time,"u":"$upstream_status"}';`);
    assert.match(text, `access_log syslog:server=127.0.0.1:3109,nohostname,tag=relay ${name};`);
    assert.not.match(render(spec), 'log_format');
    assert.not.match(render(spec), 'syslog');
  }
  assert.not.match(render({ kind: 'panel', fqdn: 'panel.example.com' }, withPort), 'syslog', 'the panel\'s own vhosts are not counted');
});

s.run();
