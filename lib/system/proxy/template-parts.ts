// What every vhost template is made of: the context it renders in, and the pieces several kinds
// share (a name's TLS server and its port-80 redirect, the ACME location, the proxy headers).
import { type CertPaths, type PublicLocations, SystemError } from '../types.ts';
import { assertAbsolutePath, assertFqdn, assertPort, LISTEN_ADDRESS } from '../common/names.ts';

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
  /** root's per-name certificate map (sni-map.ts), which the `tunnels` vhost names in per-name mode */
  sniDir: string;
  certFor(fqdn: string): CertPaths;
  /** the http context's settings nginx's main configuration already gives (value by name): the default server leaves them out */
  setInMainConf?: ReadonlyMap<string, string>;
}

export const NO_PUBLIC_LOCATIONS: PublicLocations = { exact: [], prefix: [] };

/** Client-sent names nginx must never pass on as if it had set them. */
export const FORWARDED_CLIENT_CERT_HEADERS = [
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

/**
 * A name's vhost: the port-80 redirect (its `location /` starting with `redirectPrelude`) plus the
 * TLS server with its certificate and `body`.
 */
/** `cert`: the certbot lineage served, the name's own unless a wildcard covers it */
export function tlsVhost(title: string, fqdn: string, ctx: TemplateContext, cert: string, body: string[], redirectPrelude: string[] = []): string {
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

export function header(what: string): string {
  return `# managed by relay-panel: ${what}. Changes here are overwritten.`;
}

export function indent(lines: string[]): string[] {
  return lines.map((l) => (l === '' ? l : `    ${l}`));
}

export function listen(ctx: TemplateContext, port: number): string {
  if (!LISTEN_ADDRESS.test(ctx.listenAddress)) throw new Error(`invalid listen address ${ctx.listenAddress}`);
  return `${ctx.listenAddress}:${assertPort(port)}`;
}

export function httpsSuffix(ctx: TemplateContext): string {
  return ctx.ports.https === 443 ? '' : `:${ctx.ports.https}`;
}

/** The protocols every TLS server of the panel's allows, after its certificate lines. */
export const TLS_PROTOCOL_LINES: readonly string[] = ['ssl_protocols TLSv1.2 TLSv1.3;', 'ssl_prefer_server_ciphers off;'];

export function tls(cert: CertPaths): string[] {
  return [`ssl_certificate "${assertAbsolutePath(cert.fullchain)}";`, `ssl_certificate_key "${assertAbsolutePath(cert.privkey)}";`, ...TLS_PROTOCOL_LINES];
}

/** Port-80 server: ACME http-01 answers, everything else goes to HTTPS. */
export function httpRedirectServer(fqdn: string, ctx: TemplateContext, prelude: string[]): string[] {
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

export function acmeLocation(ctx: TemplateContext): string[] {
  return [
    // a host-specific port-80 server shadows the default one, so each carries the ACME webroot
    'location ^~ /.well-known/acme-challenge/ {',
    ...indent([`root "${assertAbsolutePath(ctx.acmeWebroot)}";`, 'default_type text/plain;', 'try_files $uri =404;']),
    '}',
  ];
}

/**
 * The name (and port, when not 443) a TLS server serves this request under: nginx chose the server,
 * and the shared server's route, by `$host`, which is the request line's host when the target is in
 * absolute form (`GET https://b/` with `Host: a`, as RFC 9112 3.2.2 says), so whatever judges or
 * describes the request (the portal's check, the app's X-Forwarded-Host) names this, never the
 * client's Host header. Browsers send no absolute form, so for them it equals `$http_host`.
 */
export function servedHost(ctx: TemplateContext): string {
  return `$host${httpsSuffix(ctx)}`;
}

/**
 * `forwardedHost`: `$http_host` for the panel's, the portal's and the tunnel server's vhosts (the
 * panel compares a browser's Origin with it, port included; nginx refuses with 421 a name other
 * than the SNI on the panel's servers, which verify client certificates); `servedHost` behind the portal.
 */
export function forwardedHeaders(forwardedHost = '$http_host'): string[] {
  return [
    'proxy_set_header Host $host;',
    'proxy_set_header X-Real-IP $remote_addr;',
    // exactly one trusted hop: the client's own X-Forwarded-For is replaced, not appended to
    'proxy_set_header X-Forwarded-For $remote_addr;',
    'proxy_set_header X-Forwarded-Proto $scheme;',
    `proxy_set_header X-Forwarded-Host ${forwardedHost};`,
  ];
}

export function websocket(): string[] {
  return ['proxy_http_version 1.1;', 'proxy_set_header Upgrade $http_upgrade;', 'proxy_set_header Connection $http_connection;'];
}

/**
 * For every proxied location that is not the panel: client-sent certificate headers are dropped,
 * so no upstream (and no panel listener reached by mistake) ever sees a forged X-SSL-Client-*.
 */
export function dropClientCertHeaders(): string[] {
  return ['X-SSL-Client-Verify', 'X-SSL-Client-DN', 'X-SSL-Client-Serial', ...FORWARDED_CLIENT_CERT_HEADERS].map((h) => `proxy_set_header ${h} "";`);
}

/** A location path we write into nginx: plain URL characters only, so it cannot break out of the directive. */
export function assertLocationPath(path: string): string {
  if (!/^\/[A-Za-z0-9._~\/-]*$/.test(path)) throw new SystemError(`Invalid public location '${path}'`);
  return path;
}

/**
 * Inside a location (or the default server): neither the access log nor the error log (its
 * `request:` context) sees the request line, which may carry a secret (an invitation link typed
 * for a name that has no vhost any more).
 */
export const UNLOGGED = ['access_log off;', 'error_log /dev/null;'];
