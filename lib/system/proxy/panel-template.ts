// The panel's vhosts (on the IP address and on panel.<domain>): client certificates verified by
// nginx, public locations, secrets kept out of the logs, and the help page of a refused certificate.
import type { TemplateContext } from './template-parts.ts';
import { assertAbsolutePath, assertPort } from '../common/names.ts';
import { largestBody } from '../../upload-refusals.ts';
import { SITE_UPLOAD_LIMITS } from '../../upload-limits.ts';
import { assertLocationPath, FORWARDED_CLIENT_CERT_HEADERS, forwardedHeaders, header, indent, listen, tls, tlsVhost, UNLOGGED, websocket } from './template-parts.ts';

export const HELP_PAGE_NAME = 'relay-mtls-help.html';

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

export function renderPanel(fqdn: string, ctx: TemplateContext): string {
  // an invitation link typed with http:// reaches the port-80 redirect first
  return tlsVhost(`panel ${fqdn}: client certificate required`, fqdn, ctx, fqdn, panelBody(ctx), unlogSecretRequestUri());
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
 * Above the longest upload the panel accepts, so the panel's own refusal (JSON, in the spec's words:
 * a site upload's 400 `Upload failed: ...`, a backup's 413) always comes first; nginx's HTML 413 only backs it up.
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
