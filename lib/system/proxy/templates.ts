// nginx virtual hosts as pure functions of a spec and the adapter's ports and paths. Host and
// sandbox render the same text, so what the sandbox writes is what production would run.
import { SystemError, type CertPaths, type PublicLocations, type VhostSpec } from '../types.ts';
import { largestBody } from '../../upload-refusals.ts';
import { SITE_UPLOAD_LIMITS } from '../../upload-limits.ts';
import { assertAbsolutePath, assertFqdn, assertPort, isFqdn, LISTEN_ADDRESS } from '../common/names.ts';

export interface TemplateContext {
  /** every listen names this address explicitly: mixing a wildcard and an address on one port fails silently */
  listenAddress: string;
  ports: { http: number; https: number; ipPanel: number; panel: number; tunnelServer: number; authPortal: number };
  acmeWebroot: string;
  helpDir: string;
  /** client CA and CRL the panel vhosts verify against */
  mtls: { caPath: string; crlPath: string };
  ipPanelCert: CertPaths;
  /** the default server's self-signed certificate: it names nothing, so no real one is shown for an unknown name */
  defaultCert: CertPaths;
  /** panel paths proxied whatever the client certificate: the routes marked public */
  publicLocations: PublicLocations;
  /** loopback UDP port of the traffic log (lib/traffic); null: none */
  trafficPort: number | null;
  /** where the shared apps' routes are linked: the `tunnels` vhost's map includes every file there */
  routesDir: string;
  certFor(fqdn: string): CertPaths;
}

export const NO_PUBLIC_LOCATIONS: PublicLocations = { exact: [], prefix: [] };

export const HELP_PAGE_NAME = 'relay-mtls-help.html';

/** Client-sent names nginx must never pass on as if it had set them. */
const FORWARDED_CLIENT_CERT_HEADERS = [
  'X-SSL-Client-Cert',
  'X-SSL-Client-Escaped-Cert',
  'X-SSL-Client-Fingerprint',
  'X-SSL-Client-I-DN',
  'X-SSL-Client-S-DN',
  'X-SSL-Client-V-Start',
  'X-SSL-Client-V-End',
  'X-SSL-Client-V-Remain',
  'X-SSL-Cipher',
  'X-SSL-Protocol',
  'X-SSL-Session-Id',
];

const REMOTE_HEADERS: Array<[header: string, variable: string, upstream: string]> = [
  ['Remote-User', '$relay_remote_user', '$upstream_http_remote_user'],
  ['Remote-Groups', '$relay_remote_groups', '$upstream_http_remote_groups'],
  ['Remote-Name', '$relay_remote_name', '$upstream_http_remote_name'],
  ['Remote-Email', '$relay_remote_email', '$upstream_http_remote_email'],
];

const AUTHZ_LOCATION = '/internal/relay-authz';

/**
 * Panel paths that carry a one-time secret (the invitation token: the client page and its API).
 * nginx's logs hold the request line, so requests under these are never logged.
 */
export const SECRET_PATH_PREFIXES: readonly string[] = ['/invite/', '/api/invite/'];

/**
 * Whole panel paths (regular expressions) that carry a credential: a ticket id is the bearer
 * credential of an agent-to-agent ticket (the audit log redacts it too), and the admin revokes one
 * with DELETE /api/tickets/:ticketId. The other /api/tickets/ paths hold a name, never hex only.
 */
export const SECRET_PATH_PATTERNS: readonly string[] = ['/api/tickets/[0-9A-Fa-f]+'];

const SECRET_PATH_REGEXES = SECRET_PATH_PATTERNS.map((p) => new RegExp(`^${p}$`));

/** Whether nginx keeps requests for this path out of its logs. */
export function isSecretPath(path: string): boolean {
  return SECRET_PATH_PREFIXES.some((secret) => path.startsWith(secret)) || SECRET_PATH_REGEXES.some((r) => r.test(path));
}

/** The kinds without a name of their own: one file each. */
type UnnamedKind = Extract<VhostSpec, { kind: 'ip-panel' | 'default' }>['kind'];

const UNNAMED_VHOSTS: Record<UnnamedKind, string> = { 'ip-panel': 'relay-ip-panel.conf', default: 'relay-default.conf' };

const isUnnamed = (kind: VhostSpec['kind']): kind is UnnamedKind => kind in UNNAMED_VHOSTS;

export function vhostName(spec: VhostSpec): string {
  if (spec.kind === 'ip-panel' || spec.kind === 'default') return UNNAMED_VHOSTS[spec.kind];
  return `relay-${spec.kind}-${assertFqdn(spec.fqdn)}.conf`;
}

const NAMED_KINDS = ['panel', 'auth-portal', 'tunnel-server', 'app', 'site', 'tunnels'] as const;

const ROUTE_HEADER = '# managed by relay-panel: route of app tunnel ';

/** Whether a file's text is a shared app's route (linked in the routes directory, not sites-enabled). */
export function isRouteText(text: string): boolean {
  return text.startsWith(ROUTE_HEADER);
}

/** Whether a spec's file is a route: a shared app's, served by the `tunnels` vhost. */
export function isRouteSpec(spec: VhostSpec): boolean {
  return spec.kind === 'app' && spec.shared === true;
}

/** Whether a file name is one `vhostName` can give (to any kind): what the root helper may touch. */
export function isVhostName(name: string): boolean {
  if (Object.values(UNNAMED_VHOSTS).includes(name)) return true;
  const kind = NAMED_KINDS.find((k) => name.startsWith(`relay-${k}-`) && name.endsWith('.conf'));
  return kind !== undefined && isFqdn(name.slice(`relay-${kind}-`.length, -'.conf'.length));
}

/** Whether a file name is one `vhostName` gives to a vhost of this kind. */
export function isVhostNameOfKind(name: string, kind: VhostSpec['kind']): boolean {
  if (isUnnamed(kind)) return name === UNNAMED_VHOSTS[kind];
  return name.startsWith(`relay-${kind}-`) && name.endsWith('.conf');
}

export function renderVhost(spec: VhostSpec, ctx: TemplateContext): string {
  switch (spec.kind) {
    case 'ip-panel':
      return renderIpPanel(ctx);
    case 'default':
      return renderDefault(ctx);
    case 'panel':
      return renderPanel(spec.fqdn, ctx);
    case 'auth-portal':
      return renderAuthPortal(spec.fqdn, ctx);
    case 'tunnel-server':
      return renderTunnelServer(spec.fqdn, ctx);
    case 'app':
      return spec.shared ? renderRoute(spec.fqdn, spec.port) : renderApp(spec.fqdn, spec.port, ctx, spec.public === true, spec.cert);
    case 'site':
      return renderSite(spec, ctx);
    case 'tunnels':
      return renderTunnels(spec.fqdn, ctx);
  }
}

// ---------- the vhosts ----------

export function renderIpPanel(ctx: TemplateContext): string {
  return [
    header('IP panel: reachable by address, client certificate required'),
    'server {',
    ...indent([
      `listen ${listen(ctx, ctx.ports.ipPanel)} ssl default_server;`,
      'server_name _;',
      ...tls(ctx.ipPanelCert),
      ...panelBody(ctx),
    ]),
    '}',
    '',
  ].join('\n');
}

/**
 * The catch-all of ports 80 and 443. Without it nginx hands a name that has no vhost (a disabled
 * tunnel's, an unknown subdomain, the bare address without SNI) to the first server of the port:
 * another app or site, with that one's certificate. Here such a name gets a plain 404.
 */
export function renderDefault(ctx: TemplateContext): string {
  const notFound = ['location / {', ...indent(['default_type text/plain;', 'return 404 "Not found\\n";']), '}'];
  return [
    header('default server: every name without a vhost, and the bare address, gets a plain 404'),
    'server {',
    // certbot's http-01 challenge for a name arrives before that name has a vhost
    ...indent([`listen ${listen(ctx, ctx.ports.http)} default_server;`, 'server_name _;', ...UNLOGGED, ...acmeLocation(ctx), ...notFound]),
    '}',
    'server {',
    ...indent([`listen ${listen(ctx, ctx.ports.https)} ssl default_server;`, 'server_name _;', ...UNLOGGED, ...tls(ctx.defaultCert), ...notFound]),
    '}',
    '',
  ].join('\n');
}

export function renderPanel(fqdn: string, ctx: TemplateContext): string {
  // an invitation link typed with http:// reaches the port-80 redirect first
  return tlsVhost(`panel ${fqdn}: client certificate required`, fqdn, ctx, fqdn, panelBody(ctx), unlogSecretRequestUri());
}

export function renderAuthPortal(fqdn: string, ctx: TemplateContext): string {
  return tlsVhost(`auth portal ${fqdn}`, fqdn, ctx, fqdn, [
    'location / {',
    ...indent([
      `proxy_pass http://127.0.0.1:${assertPort(ctx.ports.authPortal)};`,
      ...forwardedHeaders(),
      ...dropClientCertHeaders(),
      'proxy_set_header X-Forwarded-URI $request_uri;',
    ]),
    '}',
  ]);
}

export function renderTunnelServer(fqdn: string, ctx: TemplateContext): string {
  return tlsVhost(`tunnel server ${fqdn}: WebSocket endpoint of the reverse tunnels`, fqdn, ctx, fqdn, [
    'location / {',
    ...indent([
      `proxy_pass http://127.0.0.1:${assertPort(ctx.ports.tunnelServer)};`,
      ...forwardedHeaders(),
      ...dropClientCertHeaders(),
      ...websocket(),
      // tunnels stay open for days; idle ones must not be cut by proxy timeouts
      'proxy_read_timeout 86400s;',
      'proxy_send_timeout 86400s;',
      'proxy_buffering off;',
    ]),
    '}',
  ]);
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
 * page, and the proxy to the tunnel's loopback port (`upstream`: a port, or the variable holding it).
 */
function appBody(upstream: string, ctx: TemplateContext, open: boolean): string[] {
  // a public tunnel (admin-only, explicit): the portal is never asked, and no Remote-* header a
  // client sends reaches the app as if the portal had set it
  const guard = open ? REMOTE_HEADERS.map(([header]) => `proxy_set_header ${header} "";`) : [...authRequest(), ...refusedPage()];
  return [
    ...(open ? [] : [...authzLocation(ctx), ...refusedLocation(ctx)]),
    'location / {',
    ...indent([
      ...guard,
      `proxy_pass http://127.0.0.1:${upstream};`,
      ...forwardedHeaders(),
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

const TUNNEL_PORT = '$relay_tunnel_port';

/**
 * Every shared app under `*.<domain>` in one server, behind the portal, with the domain's wildcard
 * certificate: a map of name to port built from the linked routes. A name without a route (a
 * disabled or unknown tunnel) gets the default server's plain 404; a name with a vhost of its own
 * (the stack, a site, a public tunnel) is served by that vhost, since nginx prefers an exact name.
 */
export function renderTunnels(domain: string, ctx: TemplateContext): string {
  assertFqdn(domain);
  const unknown = [`if (${TUNNEL_PORT} = "") {`, ...indent(['return 404 "Not found\\n";']), '}'];
  const format = 'relay_traffic_tunnels';
  const traffic = ctx.trafficPort === null ? [] : [
    `log_format ${format} escape=json '{${trafficFields('app', '$host')}}';`,
  ];
  const access = ctx.trafficPort === null ? [] : [`access_log syslog:server=127.0.0.1:${assertPort(ctx.trafficPort)},nohostname,tag=relay ${format} if=${TUNNEL_PORT};`];
  return [
    header(`every shared app tunnel under *.${domain}, one server for all; their routes are linked in ${assertAbsolutePath(ctx.routesDir)}`),
    `map $host ${TUNNEL_PORT} {`,
    ...indent(['default "";', `include "${ctx.routesDir}/*.conf";`]),
    '}',
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
    ...indent([`listen ${listen(ctx, ctx.ports.https)} ssl;`, `server_name *.${domain};`, ...tls(ctx.certFor(domain)), 'default_type text/plain;', ...unknown, ...access, ...appBody(TUNNEL_PORT, ctx, false)]),
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

/** The page nginx shows with 496: no certificate, or one that failed verification. */
export function renderHelpPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Client certificate required</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>Client certificate required</h1>
<p>This panel only answers browsers that present a client certificate issued by this relay.</p>
<ol>
<li>Import the <code>.p12</code> file you were given into your browser or system keychain.</li>
<li>Restart the browser and open this address again; choose the certificate when asked.</li>
</ol>
<p>If you already imported it, the certificate may have been revoked or expired: ask the administrator for a new one.</p>
</body></html>
`;
}

// ---------- shared pieces ----------

/**
 * A name's vhost: the port-80 redirect (its `location /` starting with `redirectPrelude`) plus the
 * TLS server with its certificate and `body`.
 */
/** `cert`: the certbot lineage served, the name's own unless a wildcard covers it */
function tlsVhost(title: string, fqdn: string, ctx: TemplateContext, cert: string, body: string[], redirectPrelude: string[] = []): string {
  assertFqdn(fqdn);
  return [
    header(title),
    ...httpRedirectServer(fqdn, ctx, redirectPrelude),
    'server {',
    ...indent([`listen ${listen(ctx, ctx.ports.https)} ssl;`, `server_name ${fqdn};`, ...tls(ctx.certFor(cert)), ...body]),
    '}',
    '',
  ].join('\n');
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

function header(what: string): string {
  return `# managed by relay-panel: ${what}. Changes here are overwritten.`;
}

function indent(lines: string[]): string[] {
  return lines.map((l) => (l === '' ? l : `    ${l}`));
}

function listen(ctx: TemplateContext, port: number): string {
  if (!LISTEN_ADDRESS.test(ctx.listenAddress)) throw new Error(`invalid listen address ${ctx.listenAddress}`);
  return `${ctx.listenAddress}:${assertPort(port)}`;
}

function httpsSuffix(ctx: TemplateContext): string {
  return ctx.ports.https === 443 ? '' : `:${ctx.ports.https}`;
}

function tls(cert: CertPaths): string[] {
  return [
    `ssl_certificate "${assertAbsolutePath(cert.fullchain)}";`,
    `ssl_certificate_key "${assertAbsolutePath(cert.privkey)}";`,
    'ssl_protocols TLSv1.2 TLSv1.3;',
    'ssl_prefer_server_ciphers off;',
  ];
}

/** Port-80 server: ACME http-01 answers, everything else goes to HTTPS. */
function httpRedirectServer(fqdn: string, ctx: TemplateContext, prelude: string[]): string[] {
  return [
    'server {',
    ...indent([
      `listen ${listen(ctx, ctx.ports.http)};`,
      `server_name ${fqdn};`,
      ...acmeLocation(ctx),
      'location / {',
      ...indent([...prelude, `return 301 https://$host${httpsSuffix(ctx)}$request_uri;`]),
      '}',
    ]),
    '}',
  ];
}

function acmeLocation(ctx: TemplateContext): string[] {
  return [
    // a host-specific port-80 server shadows the default one, so each carries the ACME webroot
    'location ^~ /.well-known/acme-challenge/ {',
    ...indent([`root "${assertAbsolutePath(ctx.acmeWebroot)}";`, 'default_type text/plain;', 'try_files $uri =404;']),
    '}',
  ];
}

function forwardedHeaders(): string[] {
  return [
    'proxy_set_header Host $host;',
    'proxy_set_header X-Real-IP $remote_addr;',
    // exactly one trusted hop: the client's own X-Forwarded-For is replaced, not appended to
    'proxy_set_header X-Forwarded-For $remote_addr;',
    'proxy_set_header X-Forwarded-Proto $scheme;',
    'proxy_set_header X-Forwarded-Host $http_host;',
  ];
}

function websocket(): string[] {
  return ['proxy_http_version 1.1;', 'proxy_set_header Upgrade $http_upgrade;', 'proxy_set_header Connection $http_connection;'];
}

function clientCertHeaders(): string[] {
  return [
    // proxy_set_header replaces any client-sent header of the same name; an empty value drops it
    'proxy_set_header X-SSL-Client-Verify $ssl_client_verify;',
    'proxy_set_header X-SSL-Client-DN $ssl_client_s_dn;',
    'proxy_set_header X-SSL-Client-Serial $ssl_client_serial;',
    // names nginx does not set would otherwise pass through from the client
    ...FORWARDED_CLIENT_CERT_HEADERS.map((h) => `proxy_set_header ${h} "";`),
  ];
}

/**
 * For every proxied location that is not the panel: client-sent certificate headers are dropped,
 * so no upstream (and no panel listener reached by mistake) ever sees a forged X-SSL-Client-*.
 */
function dropClientCertHeaders(): string[] {
  return ['X-SSL-Client-Verify', 'X-SSL-Client-DN', 'X-SSL-Client-Serial', ...FORWARDED_CLIENT_CERT_HEADERS].map((h) => `proxy_set_header ${h} "";`);
}

/**
 * Above the longest upload the panel accepts, so the panel's own 413 (JSON, in the spec's words)
 * always comes first; nginx's HTML one only backs it up.
 */
const PANEL_MAX_BODY_BYTES = largestBody(SITE_UPLOAD_LIMITS) + 1024 * 1024;

function panelProxy(ctx: TemplateContext): string[] {
  return [
    `proxy_pass http://127.0.0.1:${assertPort(ctx.ports.panel)};`,
    ...forwardedHeaders(),
    ...clientCertHeaders(),
    ...websocket(),
    'proxy_read_timeout 3600s;',
    `client_max_body_size ${PANEL_MAX_BODY_BYTES};`,
    // bodies stream through to the panel, which refuses an upload at its limit: buffered, nginx would
    // read the whole body (1 GiB) before the panel saw a byte, and the client would send all of it
    'proxy_request_buffering off;',
  ];
}

/** A location path we write into nginx: plain URL characters only, so it cannot break out of the directive. */
function assertLocationPath(path: string): string {
  if (!/^\/[A-Za-z0-9._~\/-]*$/.test(path)) throw new SystemError(`Invalid public location '${path}'`);
  return path;
}

/**
 * Inside a location (or the default server): neither the access log nor the error log (its
 * `request:` context) sees the request line, which may carry a secret (an invitation link typed
 * for a name that has no vhost any more).
 */
const UNLOGGED = ['access_log off;', 'error_log /dev/null;'];

/**
 * For answers given where no location of their own can be chosen (the 495/496 help page, the
 * port-80 redirect): the original request line is what gets logged, so match it.
 */
function unlogSecretRequestUri(): string[] {
  const pattern = [
    ...SECRET_PATH_PREFIXES.map((p) => assertLocationPath(p).replaceAll('.', '\\.')),
    // $request_uri carries the query string too
    ...SECRET_PATH_PATTERNS.map((p) => `${p}(?:\\?|$)`),
  ].join('|');
  return [`if ($request_uri ~ "^(?:${pattern})") {`, ...indent(['access_log off;']), '}'];
}

/**
 * The public locations (proxied whatever the certificate) and a location of its own for every
 * secret prefix and pattern, so that no request carrying a secret is logged: one that is not
 * public still demands the certificate.
 */
function panelLocations(ctx: TemplateContext): string[] {
  const { exact, prefix } = ctx.publicLocations;
  const isPublicPrefix = (path: string) => prefix.some((p) => path.startsWith(p));
  const locations: Array<{ opening: string; path: string; open: boolean }> = [
    ...exact.map((path) => ({ opening: `location = ${assertLocationPath(path)} {`, path, open: true })),
    ...prefix.map((path) => ({ opening: `location ^~ ${assertLocationPath(path)} {`, path, open: true })),
    ...SECRET_PATH_PREFIXES.filter((path) => !prefix.includes(path))
      .map((path) => ({ opening: `location ^~ ${assertLocationPath(path)} {`, path, open: isPublicPrefix(path) })),
  ];
  return [
    ...locations.flatMap(({ opening, path, open }) => [
      opening,
      ...indent([...(isSecretPath(path) ? UNLOGGED : []), ...(open ? [] : requireClientCert()), ...panelProxy(ctx)]),
      '}',
    ]),
    ...SECRET_PATH_PATTERNS.flatMap((pattern) => [
      `location ~ "^${pattern}$" {`,
      ...indent([...UNLOGGED, ...requireClientCert(), ...panelProxy(ctx)]),
      '}',
    ]),
  ];
}

function requireClientCert(): string[] {
  return ['if ($ssl_client_verify != SUCCESS) {', '    return 496;', '}'];
}

/** Server body shared by the IP panel and panel.<domain>. */
function panelBody(ctx: TemplateContext): string[] {
  return [
    `ssl_client_certificate "${assertAbsolutePath(ctx.mtls.caPath)}";`,
    // the CRL is read at reload: every revocation is followed by a reload
    `ssl_crl "${assertAbsolutePath(ctx.mtls.crlPath)}";`,
    // optional_no_ca: a certificate nginx cannot verify (another CA, revoked, expired) does not end
    // the handshake, so public locations answer whatever the client sent; every other location
    // demands SUCCESS and answers 496 otherwise. The backend still trusts only SUCCESS.
    'ssl_verify_client optional_no_ca;',
    'ssl_verify_depth 1;',
    // nginx answers these with 400 unless the status is set explicitly. 495 is what remains of a
    // failed verification that optional_no_ca does not forgive (a revoked or expired certificate of
    // our CA, refused before any location is chosen); the spec calls every failed verification 496.
    `error_page 495 =496 /${HELP_PAGE_NAME};`,
    `error_page 496 =496 /${HELP_PAGE_NAME};`,
    `location = /${HELP_PAGE_NAME} {`,
    ...indent(['internal;', `root "${assertAbsolutePath(ctx.helpDir)}";`, ...unlogSecretRequestUri()]),
    '}',
    ...panelLocations(ctx),
    'location / {',
    ...indent([...requireClientCert(), ...panelProxy(ctx)]),
    '}',
  ];
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
      'proxy_set_header X-Original-URL $scheme://$http_host$request_uri;',
      'proxy_set_header X-Forwarded-For $remote_addr;',
      'proxy_set_header X-Forwarded-Proto $scheme;',
      'proxy_set_header X-Forwarded-Host $http_host;',
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
