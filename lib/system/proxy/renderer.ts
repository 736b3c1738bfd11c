// Turns a vhost spec into file content, first making sure what the vhost points at exists:
// the 495/496 help page, the self-signed certificates (IP panel, default server), the client CA and its CRL.
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { pathExists } from '../common/fs.ts';
import type { SystemConfig } from '../config.ts';
import { opensslServerCerts, type ServerCertMaker } from '../pki/self-signed.ts';
import type { CertPaths, CertsAdapter, PkiAdapter, PublicLocations, VhostSpec } from '../types.ts';
import { httpContextSetInMainConf } from './main-conf-directives.ts';
import { HELP_PAGE_NAME, NO_PUBLIC_LOCATIONS, renderHelpPage, renderVhost, type TemplateContext } from './templates.ts';

export interface RendererOptions {
  listenAddress: string;
  ports: TemplateContext['ports'];
  acmeWebroot: string;
  helpDir: string;
  selfSignedDir: string;
  /** where the shared apps' routes are linked (the `tunnels` vhost includes them) */
  routesDir: string;
  /** root's per-name certificate map of the shared tunnels' server */
  sniDir: string;
  openssl: string;
  timeoutMs: number;
  certs: Pick<CertsAdapter, 'paths'>;
  pki: Pick<PkiAdapter, 'ensureCa'>;
  publicLocations?: PublicLocations;
  /** where tunnel and site vhosts send their traffic log (config nginx.trafficPort) */
  trafficPort?: number | null;
  /** Makes the self-signed certificates (IP panel, default server); openssl unless given. */
  serverCerts?: ServerCertMaker;
  /** nginx's main configuration on a host: the default server leaves out the http context's settings it gives */
  mainConf?: string;
}

/** Where a system's vhosts point: the host's configured paths, or the sandbox's under dataDir. */
export type VhostLayout = Pick<RendererOptions, 'listenAddress' | 'acmeWebroot' | 'helpDir' | 'selfSignedDir' | 'routesDir' | 'sniDir'>;

/** The renderer options of a host or sandbox system: its layout, the configured ports, openssl and timeout. */
export function systemRendererOptions(
  config: SystemConfig,
  layout: VhostLayout,
  deps: Pick<RendererOptions, 'certs' | 'pki' | 'publicLocations' | 'serverCerts'>,
): RendererOptions {
  return {
    ...layout,
    ports: config.ports,
    trafficPort: config.nginx.trafficPort,
    openssl: config.binaries.openssl,
    timeoutMs: config.timeouts.defaultMs,
    certs: deps.certs,
    pki: deps.pki,
    publicLocations: deps.publicLocations,
    serverCerts: deps.serverCerts,
  };
}

export function ipPanelCertPaths(selfSignedDir: string): CertPaths {
  return { fullchain: join(selfSignedDir, 'ip-panel.pem'), privkey: join(selfSignedDir, 'ip-panel.key') };
}

/** Never a Let's Encrypt certificate: the default server answers names it has no right to. */
export function defaultCertPaths(selfSignedDir: string): CertPaths {
  return { fullchain: join(selfSignedDir, 'default.pem'), privkey: join(selfSignedDir, 'default.key') };
}

export type ClientCaPaths = TemplateContext['mtls'];

/** For kinds without client certificates: never written into their vhosts. */
const NO_CLIENT_CA: ClientCaPaths = { caPath: '/nonexistent/ca.pem', crlPath: '/nonexistent/crl.pem' };

/**
 * Makes what a vhost points at before it is written (client CA and CRL, help page, the IP panel's
 * and the default server's certificates); resolves with the client CA the vhost verifies against.
 */
export function createVhostPreparer(o: RendererOptions): (spec: VhostSpec) => Promise<ClientCaPaths> {
  const ipPanelCert = ipPanelCertPaths(o.selfSignedDir);
  const selfSigned = async (paths: CertPaths, commonName: string) => {
    if (await pathExists(paths.fullchain)) return;
    // openssl through execFile; the key is made 0600
    await (o.serverCerts ?? opensslServerCerts).create({ openssl: o.openssl, timeoutMs: o.timeoutMs, paths, commonName, subjectAltNames: [], days: 3650 });
  };
  // the CA and the help page, once made, stay: checked until the first success only
  let clientCa: ClientCaPaths | null = null;
  return async (spec) => {
    if (spec.kind === 'default') await selfSigned(defaultCertPaths(o.selfSignedDir), 'relay-panel-default');
    if (spec.kind !== 'ip-panel' && spec.kind !== 'panel') return NO_CLIENT_CA;
    if (!clientCa) {
      const ready = await o.pki.ensureCa();
      await ensureHelpPage(o.helpDir);
      clientCa = ready;
    }
    if (spec.kind === 'ip-panel') await selfSigned(ipPanelCert, 'relay-panel');
    return clientCa;
  };
}

/** The template context of a layout: its ports and paths, the client CA, certbot's certificates. */
export function templateContext(
  o: VhostLayout & Pick<RendererOptions, 'ports' | 'certs' | 'publicLocations' | 'trafficPort'>,
  mtls: ClientCaPaths,
): TemplateContext {
  return {
    listenAddress: o.listenAddress,
    ports: o.ports,
    acmeWebroot: o.acmeWebroot,
    helpDir: o.helpDir,
    mtls,
    ipPanelCert: ipPanelCertPaths(o.selfSignedDir),
    defaultCert: defaultCertPaths(o.selfSignedDir),
    publicLocations: o.publicLocations ?? NO_PUBLIC_LOCATIONS,
    trafficPort: o.trafficPort ?? null,
    routesDir: o.routesDir,
    sniDir: o.sniDir,
    certFor: (fqdn) => o.certs.paths(fqdn),
  };
}

export function createVhostRenderer(o: RendererOptions): (spec: VhostSpec) => Promise<string> {
  const prepare = createVhostPreparer(o);
  return async (spec) => {
    const ctx = templateContext(o, await prepare(spec));
    if (spec.kind === 'default' && o.mainConf) ctx.setInMainConf = await httpContextSetInMainConf(o.mainConf);
    return renderVhost(spec, ctx);
  };
}

async function ensureHelpPage(dir: string): Promise<void> {
  const path = join(dir, HELP_PAGE_NAME);
  if (!(await pathExists(path))) await writeFileAtomic(path, renderHelpPage());
}

