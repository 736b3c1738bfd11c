// nginx virtual hosts as pure functions of a spec and the adapter's ports and paths. Host and
// sandbox render the same text, so what the sandbox writes is what production would run. This file
// names the vhosts and renders each kind; the panel's and the portal-protected kinds have files of
// their own (panel-template.ts, app-template.ts), and their shared pieces are in template-parts.ts.
import type { VhostSpec } from '../types.ts';
import { assertFqdn, assertPort } from '../common/names.ts';
import { acmeLocation, dropClientCertHeaders, forwardedHeaders, header, indent, listen, tls, tlsVhost, UNLOGGED, websocket, type TemplateContext } from './template-parts.ts';
import { renderIpPanel, renderPanel } from './panel-template.ts';
import { httpContextLines } from './http-context.ts';
import { isNamedVhostMiddle, namedVhostFile } from './vhost-file-name.ts';
import { renderApp, renderRoute, renderSite, renderTunnels } from './app-template.ts';

export { NO_PUBLIC_LOCATIONS, type TemplateContext } from './template-parts.ts';
export { HELP_PAGE_NAME, isSecretPath, renderHelpPage, renderIpPanel, renderPanel, SECRET_PATH_PATTERNS, SECRET_PATH_PREFIXES } from './panel-template.ts';
export { isRouteText, routeName, renderApp, renderRoute, renderSite, renderTunnels, trafficLog } from './app-template.ts';

/** The kinds without a name of their own: one file each. */
type UnnamedKind = Extract<VhostSpec, { kind: 'ip-panel' | 'default' }>['kind'];

const UNNAMED_VHOSTS: Record<UnnamedKind, string> = { 'ip-panel': 'relay-ip-panel.conf', default: 'relay-default.conf' };

const isUnnamed = (kind: VhostSpec['kind']): kind is UnnamedKind => kind in UNNAMED_VHOSTS;

export function vhostName(spec: VhostSpec): string {
  if (spec.kind === 'ip-panel' || spec.kind === 'default') return UNNAMED_VHOSTS[spec.kind];
  return namedVhostFile(spec.kind, checkedFqdn(spec.fqdn));
}

// A start names each tunnel's vhost several times (the repair, the refresh), and the name check
// is a long regular expression: a name that passed it once is not tested again. Bounded.
const CHECKED_FQDNS_KEPT = 16_384;
const checkedFqdns = new Set<string>();

function checkedFqdn(fqdn: string): string {
  if (checkedFqdns.has(fqdn)) return fqdn;
  assertFqdn(fqdn);
  if (checkedFqdns.size >= CHECKED_FQDNS_KEPT) checkedFqdns.clear();
  checkedFqdns.add(fqdn);
  return fqdn;
}

const NAMED_KINDS = ['panel', 'auth-portal', 'tunnel-server', 'app', 'site', 'tunnels'] as const;

/** Whether a spec's file is a route: a shared app's, served by the `tunnels` vhost. */
export function isRouteSpec(spec: VhostSpec): boolean {
  return spec.kind === 'app' && spec.shared === true;
}

/** Whether a file name is one `vhostName` can give (to any kind): what the root helper may touch. */
export function isVhostName(name: string): boolean {
  if (Object.values(UNNAMED_VHOSTS).includes(name)) return true;
  const kind = NAMED_KINDS.find((k) => name.startsWith(`relay-${k}-`) && name.endsWith('.conf'));
  return kind !== undefined && isNamedVhostMiddle(name, name.slice(`relay-${kind}-`.length, -'.conf'.length));
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
      return renderTunnels(spec.fqdn, ctx, spec.sni === true);
  }
}

// ---------- the vhosts ----------

/**
 * The catch-all of ports 80 and 443. Without it nginx hands a name that has no vhost (a disabled
 * tunnel's, an unknown subdomain, the bare address without SNI) to the first server of the port:
 * another app or site, with that one's certificate. Here such a name gets a plain 404.
 */
export function renderDefault(ctx: TemplateContext): string {
  const notFound = ['location / {', ...indent(['default_type text/plain;', 'return 404 "Not found\\n";']), '}'];
  return [
    header('default server: every name without a vhost, and the bare address, gets a plain 404'),
    // the http context's settings the relay's vhosts need, here because this file is there once
    ...httpContextLines(ctx.setInMainConf),
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
