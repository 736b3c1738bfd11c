// The vhosts behind the auth portal: an app tunnel's (its own server, or a route of the one shared
// server of the wildcard's tunnels) and a static site's, with the portal's check, its refusal page
// and the traffic log line each request sends to the panel.
import type { VhostSpec } from '../types.ts';
import { assertAbsolutePath, assertFqdn, assertPort, isFqdn } from '../common/names.ts';
import { sniMapLines, sniTlsLines } from './sni-map.ts';
import { acmeLocation, dropClientCertHeaders, forwardedHeaders, header, httpsSuffix, indent, listen, servedHost, tls, tlsVhost, websocket, type TemplateContext } from './template-parts.ts';

const REMOTE_HEADERS: Array<[header: string, variable: string, upstream: string]> = [
  ['Remote-User', '$relay_remote_user', '$upstream_http_remote_user'],
  ['Remote-Groups', '$relay_remote_groups', '$upstream_http_remote_groups'],
  ['Remote-Name', '$relay_remote_name', '$upstream_http_remote_name'],
  ['Remote-Email', '$relay_remote_email', '$upstream_http_remote_email'],
];

const AUTHZ_LOCATION = '/internal/relay-authz';

const ROUTE_HEADER = '# managed by relay-panel: route of app tunnel ';

/** Whether a file's text is a shared app's route (linked in the routes directory, not sites-enabled). */
export function isRouteText(text: string): boolean {
  return text.startsWith(ROUTE_HEADER);
}

export function renderApp(fqdn: string, port: number, ctx: TemplateContext, open = false, cert: string = fqdn): string {
  assertFqdn(fqdn);
  assertPort(port);
  const traffic = trafficLog('app', fqdn, ctx);
  const title = `app tunnel ${fqdn} -> 127.0.0.1:${port}, ${open ? 'PUBLIC: no auth portal' : 'behind the auth portal'}`;
  return withTrafficFormat(traffic.format, tlsVhost(title, fqdn, ctx, cert, [...traffic.access, ...appBody(String(port), ctx, open)]));
}

/**
 * What an app's server holds besides its name and certificate: the portal's check and refusal
 * page, and the proxy to the tunnel's loopback port (`upstream`: a port, or the variable holding it);
 * `first`: lines that open its `location /`.
 */
function appBody(upstream: string, ctx: TemplateContext, open: boolean, first: string[] = []): string[] {
  // a public tunnel (admin-only, explicit): the portal is never asked, and no Remote-* header a
  // client sends reaches the app as if the portal had set it
  const guard = open ? REMOTE_HEADERS.map(([header]) => `proxy_set_header ${header} "";`) : [...authRequest(), ...refusedPage()];
  return [
    ...(open ? [] : [...authzLocation(ctx), ...refusedLocation(ctx)]),
    'location / {',
    ...indent([
      ...first,
      ...guard,
      `proxy_pass http://127.0.0.1:${upstream};`,
      ...forwardedHeaders(servedHost(ctx)),
      ...dropClientCertHeaders(),
      ...websocket(),
      'proxy_read_timeout 3600s;',
      'proxy_send_timeout 3600s;',
    ]),
    '}',
  ];
}

/** A shared app's route: its name and port, one entry of the `tunnels` vhost's map. */
export function renderRoute(fqdn: string, port: number): string {
  return `${ROUTE_HEADER}${assertFqdn(fqdn)} -> 127.0.0.1:${assertPort(port)}, served by the shared server of its domain. Changes here are overwritten.\n${fqdn} ${port};\n`;
}

/** The name a route's text serves (its file name is shortened past 229 characters), or null. */
export function routeName(text: string): string | null {
  const name = /^([a-z0-9.-]+) [0-9]+;$/m.exec(text)?.[1];
  return name !== undefined && isFqdn(name) ? name : null;
}

const TUNNEL_PORT = '$relay_tunnel_port';

/**
 * Every shared app under `*.<domain>` in one server, behind the portal, with the domain's wildcard
 * certificate: a map of name to port built from the linked routes. nginx's `*.<domain>` matches
 * deeper names too, so every name under the domain without a vhost of its own comes here: one
 * without a route (a disabled or unknown tunnel, a deeper name) gets the default server's plain 404,
 * and the ACME location stays on port 80 for the deeper names that use HTTP-01. A name with a vhost
 * of its own (the stack, a site, a public tunnel) is served by that vhost: nginx prefers an exact name.
 */
export function renderTunnels(domain: string, ctx: TemplateContext, sni = false): string {
  assertFqdn(domain);
  // a name without a route is the default server's business: a plain 404 and, as there, no request
  // line in the access log (it may carry a secret, an invitation link typed for the wrong name);
  // in `location /`, as nginx takes `access_log` in an `if` of a location only
  const unknown = [`if (${TUNNEL_PORT} = "") {`, ...indent(['access_log off;', 'return 404 "Not found\\n";']), '}'];
  // named after the domain: log_format names are global, and two of one name make nginx refuse
  const format = `relay_traffic_tunnels_${domain.replace(/[.-]/g, '_')}`;
  const traffic = ctx.trafficPort === null ? [] : [
    `log_format ${format} escape=json '{${trafficFields('app', '$host')}}';`,
  ];
  const access = ctx.trafficPort === null ? [] : [`access_log syslog:server=127.0.0.1:${assertPort(ctx.trafficPort)},nohostname,tag=relay ${format} if=${TUNNEL_PORT};`];
  return [
    header(`every shared app tunnel under *.${domain}, one server for all; their routes are linked in ${assertAbsolutePath(ctx.routesDir)}`),
    `map $host ${TUNNEL_PORT} {`,
    ...indent(['default "";', `include "${ctx.routesDir}/*.conf";`]),
    '}',
    ...(sni ? sniMapLines(ctx.sniDir) : []),
    ...traffic,
    'server {',
    ...indent([
      `listen ${listen(ctx, ctx.ports.http)};`,
      `server_name *.${domain};`,
      ...acmeLocation(ctx),
      'location / {',
      ...indent(['default_type text/plain;', ...unknown, `return 301 https://$host${httpsSuffix(ctx)}$request_uri;`]),
      '}',
    ]),
    '}',
    'server {',
    ...indent([`listen ${listen(ctx, ctx.ports.https)} ssl;`, `server_name *.${domain};`, ...(sni ? sniTlsLines() : tls(ctx.certFor(domain))), 'default_type text/plain;', ...access, ...appBody(TUNNEL_PORT, ctx, false, unknown)]),
    '}',
    '',
  ].join('\n');
}

const REFUSED_LOCATION = '@relay_refused';

/** The portal's refusal (403) answered by the panel's page naming the app and whom to ask. */
function refusedPage(): string[] {
  return [`error_page 403 ${REFUSED_LOCATION};`];
}

/**
 * The panel renders the page from the records (the app's name, the admin's contact), so a new contact
 * needs no vhost rewritten. Only the host goes to the panel: no body, no client certificate header.
 */
function refusedLocation(ctx: TemplateContext): string[] {
  return [
    `location ${REFUSED_LOCATION} {`,
    ...indent([
      'rewrite ^ /api/access/refused break;',
      'proxy_method GET;',
      'proxy_pass_request_body off;',
      'proxy_set_header Content-Length "";',
      'proxy_set_header Cookie "";',
      'proxy_set_header Authorization "";',
      `proxy_pass http://127.0.0.1:${assertPort(ctx.ports.panel)};`,
      'proxy_set_header Host $host;',
      'proxy_set_header X-Forwarded-Host $host;',
      ...dropClientCertHeaders(),
    ]),
    '}',
  ];
}

export function renderSite(spec: Extract<VhostSpec, { kind: 'site' }>, ctx: TemplateContext): string {
  if (spec.closed) return renderClosedSite(spec.fqdn, ctx, spec.cert ?? spec.fqdn);
  const fqdn = assertFqdn(spec.fqdn);
  const root = assertAbsolutePath(spec.root);
  const fallback = spec.spaMode ? '/index.html' : '=404';
  const traffic = trafficLog('site', fqdn, ctx);
  return withTrafficFormat(traffic.format, tlsVhost(`static site ${fqdn}${spec.spaMode ? ' (SPA)' : ''}${spec.protected ? ', behind the auth portal' : ''}`, fqdn, ctx, spec.cert ?? fqdn, [
    ...traffic.access,
    `root "${root}";`,
    'index index.html;',
    ...(spec.protected ? [...authzLocation(ctx), ...refusedLocation(ctx)] : []),
    // hidden files (.htpasswd, .git) are never served
    'location ~ /\\. {',
    ...indent(['deny all;']),
    '}',
    'location / {',
    ...indent([...(spec.protected ? [...authRequest(), ...refusedPage()] : []), `try_files $uri $uri/ ${fallback};`]),
    '}',
  ]));
}

/**
 * A protected site the portal cannot reach (lib/portal-reach.ts): nothing of it is served,
 * and no auth_request is made, whose refusal nginx would turn into a 500.
 */
function renderClosedSite(fqdn: string, ctx: TemplateContext, cert: string): string {
  const traffic = trafficLog('site', fqdn, ctx);
  return withTrafficFormat(traffic.format, tlsVhost(`static site ${fqdn}, closed: protected, but outside the auth portal's domain`, fqdn, ctx, cert, [
    ...traffic.access,
    'default_type text/plain;',
    'location / {',
    ...indent(['return 403 "This site is protected, and the sign-in portal does not serve its domain.\\n";']),
    '}',
  ]));
}

/**
 * One JSON line per request over syslog to the panel's loopback port (lib/traffic). log_format
 * lives in nginx's http context and its name is global, so each vhost defines its own (named
 * after its kind and name) above its servers; a vhost so never depends on another file.
 */
export function trafficLog(kind: 'app' | 'site', fqdn: string, ctx: TemplateContext): { format: string; access: string[] } {
  if (ctx.trafficPort === null) return { format: '', access: [] };
  const name = `relay_traffic_${kind}_${assertFqdn(fqdn).replace(/[.-]/g, '_')}`;
  return {
    format: `log_format ${name} escape=json '{${trafficFields(kind, fqdn)}}';\n`,
    access: [`access_log syslog:server=127.0.0.1:${assertPort(ctx.trafficPort)},nohostname,tag=relay ${name};`],
  };
}

/** One request's fields; `host`: the vhost's name, or `$host` in the shared server. */
function trafficFields(kind: 'app' | 'site', host: string): string {
  return `"v":"${kind}:${host}","s":$status,"in":$request_length,"out":$bytes_sent,"t":$request_time,"u":"$upstream_status"`;
}

/** The log_format line just below the vhost's header comment (http context, before its servers). */
function withTrafficFormat(format: string, vhost: string): string {
  if (!format) return vhost;
  const end = vhost.indexOf('\n') + 1;
  return vhost.slice(0, end) + format + vhost.slice(end);
}

function authzLocation(ctx: TemplateContext): string[] {
  return [
    `location = ${AUTHZ_LOCATION} {`,
    ...indent([
      'internal;',
      `proxy_pass http://127.0.0.1:${assertPort(ctx.ports.authPortal)}/api/authz/auth-request;`,
      'proxy_pass_request_body off;',
      'proxy_set_header Content-Length "";',
      'proxy_set_header Connection "";',
      'proxy_set_header X-Original-Method $request_method;',
      // the portal judges the name nginx serves (servedHost): the client's Host header may name
      // another, whose access rule would then decide who reaches this one
      `proxy_set_header X-Original-URL $scheme://${servedHost(ctx)}$request_uri;`,
      'proxy_set_header X-Forwarded-For $remote_addr;',
      'proxy_set_header X-Forwarded-Proto $scheme;',
      `proxy_set_header X-Forwarded-Host ${servedHost(ctx)};`,
      'proxy_set_header X-Forwarded-URI $request_uri;',
    ]),
    '}',
  ];
}

/**
 * Authelia 4.38's nginx integration ("modern method"): on 401 the authz endpoint's Location header
 * is the portal address (session.cookies[].authelia_url) with the original URL already escaped in
 * `rd`. Building `?rd=$scheme://$http_host$request_uri` here instead left the URL unescaped, so
 * everything after its first `&` was lost on the way back.
 */
function authRequest(): string[] {
  return [
    `auth_request ${AUTHZ_LOCATION};`,
    ...REMOTE_HEADERS.map(([, variable, upstream]) => `auth_request_set ${variable} ${upstream};`),
    'auth_request_set $relay_redirection_url $upstream_http_location;',
    'error_page 401 =302 $relay_redirection_url;',
    // the portal's answer replaces whatever the client sent under these names
    ...REMOTE_HEADERS.map(([header, variable]) => `proxy_set_header ${header} ${variable};`),
  ];
}
