import { dirname, join } from 'node:path';
import { z } from 'zod';
import { isDnsServer, LISTEN_ADDRESS } from './common/names.ts';

// Settings of the host adapters: binaries, paths, ports, ACME server, DNS servers.
// `sandbox` plays the host inside dataDir; `host` drives the real programs.
// Every field has a production default (Debian layout), so `{ driver: 'host' }` alone is a
// working configuration and `{}` is the sandbox. Tests override paths and ports.

// Upper bounds for what an operator types: Linux PATH_MAX, RFC 1035 names, systemd's unit name limit.
const MAX_PATH = 4096;
const MAX_NAME = 255;
const MAX_URL = 2048;
/** The longest textual IP address (an IPv6 address with an embedded IPv4 address). */
export const MAX_IP_TEXT = 45;

const absolutePath = z.string().min(1).max(MAX_PATH).refine((p) => p.startsWith('/') && !p.split('/').includes('..'), {
  message: 'must be an absolute path without ..',
});
const port = z.number().int().min(1).max(65535);
const sha256 = z.string().max(64).regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256');
const unitName = z.string().max(MAX_NAME + 1).regex(/^[A-Za-z0-9@._-]+$/, 'must be a systemd unit name');

const Binaries = z
  .object({
    nginx: absolutePath.default('/usr/sbin/nginx'),
    certbot: absolutePath.default('/usr/bin/certbot'),
    openssl: absolutePath.default('/usr/bin/openssl'),
    systemctl: absolutePath.default('/usr/bin/systemctl'),
    journalctl: absolutePath.default('/usr/bin/journalctl'),
    chisel: absolutePath.default('/usr/local/bin/chisel'),
    authelia: absolutePath.default('/usr/local/bin/authelia'),
    // a DNS plugin of certbot, installed when the certificate mode becomes wildcard
    aptGet: absolutePath.default('/usr/bin/apt-get'),
    dpkgQuery: absolutePath.default('/usr/bin/dpkg-query'),
  })
  .strict();

const Ports = z
  .object({
    http: port.default(80),
    https: port.default(443),
    ipPanel: port.default(9292),
    /** the panel's own loopback listener that nginx proxies to */
    panel: port.default(3100),
    tunnelServer: port.default(9090),
    authPortal: port.default(9091),
  })
  .strict();

const Nginx = z
  .object({
    /** `-p` prefix; null uses nginx's compiled-in prefix (the Debian package) */
    prefix: absolutePath.nullable().default(null),
    conf: absolutePath.default('/etc/nginx/nginx.conf'),
    sitesAvailable: absolutePath.default('/etc/nginx/sites-available'),
    sitesEnabled: absolutePath.default('/etc/nginx/sites-enabled'),
    /**
     * the TCP and UDP tunnels' stream servers, one file each (lib/system/streams), included by the
     * `stream {}` block of the main configuration; nothing in it is linked: a file is a live server.
     * null: `relay-streams` beside sites-available (/etc/nginx/relay-streams), so a configuration
     * that moved the vhosts moves these with them (streamsDirOf)
     */
    streamsDir: absolutePath.nullable().default(null),
    /** read after each reload: a reload can exit 0 yet fail to bind */
    errorLog: absolutePath.default('/var/log/nginx/error.log'),
    /** every generated listen names this address explicitly (never a bare port, recipe pitfall 9) */
    listenAddress: z.string().max(MAX_IP_TEXT).regex(LISTEN_ADDRESS).default('0.0.0.0'),
    /** static files of the 495/496 help page */
    helpDir: absolutePath.default('/var/www/relay-panel-help'),
    /**
     * tunnel and site vhosts log each request as one JSON line over syslog (UDP) to this loopback
     * port, where the panel counts traffic (lib/traffic); null: no traffic log
     */
    trafficPort: port.nullable().default(null),
    /** where the IP panel's self-signed certificate lives */
    selfSignedDir: absolutePath.default('/etc/relay-panel/ip-panel-cert'),
    /**
     * root's copies of the TLS material nginx's root master loads (root 0700, files 0600), one
     * directory per source: `<fqdn>/`, `ip-panel/`, `default/`, `client-ca/`. The root helper copies
     * them from the panel's files after checking owner, type and content (lib/root-helper/tls-copies.ts)
     */
    tlsDir: absolutePath.default('/etc/nginx/relay-panel-tls'),
    reloadWith: z.enum(['signal', 'systemctl']).default('signal'),
    /**
     * the pid file nginx.conf names (`pid`; Debian's /run/nginx.pid): a reload's outcome is its
     * master's new worker processes, or the [emerg]/[alert] lines that master logs
     */
    pidFile: absolutePath.default('/run/nginx.pid'),
    /**
     * how long a reload may take to start new workers before it counts as failed (and the change is
     * undone): 5x the slowest reload measured at 1,000 vhosts on an idle box (3.9 s), which took
     * 11.8 s on two cores at load 12; a change's test and reload still answer within the root
     * helper call's 30 s (`timeouts.defaultMs`)
     */
    reloadTimeoutMs: z.number().int().min(100).default(20_000),
    /** only when `pidFile` names no running master (a fake nginx): how long the error log alone is watched */
    reloadCheckMs: z.number().int().min(0).default(400),
    /**
     * accepted and ignored: the sudo-run vhost helper of releases before the root helper service
     * (`rootHelper`); upgrade sets it to null, and a configuration that still names it loads
     */
    vhostHelper: absolutePath.nullable().default(null),
  })
  .strict();

const Acme = z
  .object({
    server: z.string().max(MAX_URL).url().default('https://acme-v02.api.letsencrypt.org/directory'),
    // The panel's own certbot directories: Debian's /etc/letsencrypt, /var/lib/letsencrypt and
    // /var/log/letsencrypt stay the operator's and root's, and root's certbot never reads a file the
    // panel's user wrote. (Earlier releases used Debian's; lib/install/acme-move.ts moves
    // their lineages here.)
    configDir: absolutePath.default('/etc/relay-panel/letsencrypt'),
    workDir: absolutePath.default('/var/lib/relay-panel-acme'),
    logsDir: absolutePath.default('/var/log/relay-panel-acme'),
    /**
     * http-01 challenges: the panel's certbot writes them, nginx's default server serves this root
     * on port 80 for names without a vhost yet (not Debian's /var/www/html, which stays the operator's)
     */
    webroot: absolutePath.default('/var/www/relay-panel-acme'),
    /** REQUESTS_CA_BUNDLE for certbot (tests: pebble's own HTTPS CA) */
    caBundle: absolutePath.nullable().default(null),
    /**
     * the panel's own renewal timer (lib/system/certs/renew-units.ts renders it and the service of
     * its name); Debian's certbot.timer stays the operator's
     */
    renewTimer: unitName.refine((name) => name.endsWith('.timer'), 'must name a .timer unit').default('relay-panel-renew.timer'),
    /** renewal of certificates that expire within this many days counts as due */
    minValidDays: z.number().int().min(0).default(1),
  })
  .strict();

const Dns = z
  .object({
    /** empty: the system resolver's servers */
    servers: z.array(z.string().min(1).max(MAX_NAME).refine(isDnsServer, 'must be an IP address, optionally with a port')).max(16).default([]),
    timeoutMs: z.number().int().min(50).default(2000),
    tries: z.number().int().min(1).default(2),
  })
  .strict();

const Release = (defaults: { version: string; url: string; sha256: string; checksumFile: 'none' | 'beside' }) =>
  z
    .object({
      version: z.string().min(1).max(64).default(defaults.version),
      url: z.string().max(MAX_URL).url().default(defaults.url),
      sha256: sha256.default(defaults.sha256),
      /**
       * `beside`: the download is also checked against the `<url>.sha256` file its release publishes
       * beside the asset (docs/decisions.md names each pin's source and what its release publishes)
       */
      checksumFile: z.enum(['none', 'beside']).default(defaults.checksumFile),
    })
    .strict();

const Chisel = z
  .object({
    // SHA-256 as cashapp/hermit-packages' chisel.hcl records it for this asset (docs/decisions.md)
    // (its release publishes no .sha256 beside the asset, only goreleaser's checksums list, unsigned)
    release: Release({
      version: '1.9.0',
      url: 'https://github.com/jpillora/chisel/releases/download/v1.9.0/chisel_1.9.0_linux_amd64.gz',
      sha256: 'acb2c4419a7aa4cb0b812a179bdd51d579c0cc1f193b1b8911d64b2d3ff8f450',
      checksumFile: 'none',
    }).prefault({}),
    dir: absolutePath.default('/etc/chisel'),
  })
  .strict();

const Authelia = z
  .object({
    // SHA-256 as the AUR package authelia-bin 4.38.4 records it, written by Authelia's own release
    // pipeline from the published asset; the release also publishes `<asset>.sha256` and signs
    // nothing (signatures began with 4.39.11): docs/decisions.md, "Authelia's download"
    release: Release({
      version: '4.38.4',
      url: 'https://github.com/authelia/authelia/releases/download/v4.38.4/authelia-v4.38.4-linux-amd64.tar.gz',
      sha256: '3ce24ebd83e947891c2ac01583886eb5fec65725f3433eba524f0dd45f50e243',
      checksumFile: 'beside',
    }).prefault({}),
    /** the executable's name inside the release tarball */
    archiveMember: z.string().min(1).max(MAX_NAME).default('authelia-linux-amd64'),
    dir: absolutePath.default('/etc/authelia'),
    adminGroup: z.string().min(1).max(MAX_NAME).default('admins'),
  })
  .strict();

const Units = z
  .object({
    proxy: unitName.default('nginx'),
    'tunnel-server': unitName.default('chisel'),
    'auth-portal': unitName.default('authelia'),
    panel: unitName.default('relay-panel'),
  })
  .strict();

const userName = z.string().max(32).regex(/^[a-z_][a-z0-9_-]*$/, 'must be a user name');

const Systemd = z
  .object({
    unitDir: absolutePath.default('/etc/systemd/system'),
    /** the panel's user, which chisel and Authelia run as unless they have users of their own; null: root */
    runAs: userName.nullable().default(null),
    /**
     * chisel's own user (the installer makes `<panel user>-chisel`, with a group of the same name):
     * it reads its authfile and host key through that group and cannot reach the root helper's
     * socket or the panel's state. null: `runAs`
     */
    tunnelUser: userName.nullable().default(null),
    /** Authelia's own user (the installer makes `<panel user>-authelia`); null: `runAs` */
    portalUser: userName.nullable().default(null),
  })
  .strict();

/** Where the shared app tunnels' routes are linked: `relay-routes` beside sites-available, as the streams are. */
export function routesDirOf(system: { nginx: Pick<SystemConfig['nginx'], 'sitesAvailable'> }): string {
  return join(dirname(system.nginx.sitesAvailable), 'relay-routes');
}

/** Where the TCP and UDP tunnels' stream servers live (`nginx.streamsDir`, else beside sites-available). */
export function streamsDirOf(system: { nginx: Pick<SystemConfig['nginx'], 'sitesAvailable' | 'streamsDir'> }): string {
  return system.nginx.streamsDir ?? join(dirname(system.nginx.sitesAvailable), 'relay-streams');
}

/** The user a service of the panel runs as (its unit's User= and Group=); null: root. */
export function serviceUser(system: Pick<SystemConfig, 'systemd'>, service: 'tunnel-server' | 'auth-portal'): string | null {
  const own = service === 'tunnel-server' ? system.systemd.tunnelUser : system.systemd.portalUser;
  return own ?? system.systemd.runAs;
}

/**
 * The root helper service of an installed box (lib/root-helper): the panel runs as its own user
 * with no way to root but this socket, where one strict JSON request asks for one action (vhosts,
 * nginx test and reload, the units). null: the host adapters run the programs themselves.
 */
const RootHelper = z
  .object({
    socket: absolutePath,
    /** `<call> nginx-reload`: certbot's deploy hook, run as the panel's user, reaches the helper through it */
    call: absolutePath,
  })
  .strict();

const Pki = z
  .object({
    dir: absolutePath.default('/etc/relay-panel/pki'),
    caCommonName: z.string().min(1).max(64).default('relay-panel-client-ca'),
    clientCertDays: z.number().int().min(1).default(825),
  })
  .strict();

const Timeouts = z
  .object({
    defaultMs: z.number().int().min(100).default(30_000),
    certbotMs: z.number().int().min(1000).default(180_000),
    downloadMs: z.number().int().min(1000).default(120_000),
  })
  .strict();

const Sites = z
  .object({
    /** static sites live in `<root>/<site id>`; nginx serves them from there */
    root: absolutePath.default('/var/www/relay-sites'),
  })
  .strict();

const Sandbox = z
  .object({
    /** name -> IPv4 answers; a name also answers for its subdomains; [] makes it not resolve */
    dns: z.record(z.string().max(MAX_NAME), z.array(z.string().max(MAX_IP_TEXT)).max(16)).prefault({}),
    /** also run `nginx -t` on the sandbox vhosts (needs nginx installed; off keeps tests fast) */
    nginxTest: z.boolean().default(false),
    /** file the panel logs to; the sandbox journal of `panel` follows it */
    panelLogFile: absolutePath.nullable().default(null),
  })
  .strict();

export const SystemConfigSchema = z
  .object({
    driver: z.enum(['host', 'sandbox']).default('sandbox'),
    binaries: Binaries.prefault({}),
    ports: Ports.prefault({}),
    nginx: Nginx.prefault({}),
    acme: Acme.prefault({}),
    dns: Dns.prefault({}),
    chisel: Chisel.prefault({}),
    authelia: Authelia.prefault({}),
    units: Units.prefault({}),
    systemd: Systemd.prefault({}),
    rootHelper: RootHelper.nullable().default(null),
    pki: Pki.prefault({}),
    timeouts: Timeouts.prefault({}),
    sites: Sites.prefault({}),
    sandbox: Sandbox.prefault({}),
  })
  .strict();

export type SystemConfig = z.infer<typeof SystemConfigSchema>;
export type SystemConfigInput = z.input<typeof SystemConfigSchema>;

/** A fully defaulted configuration, with overrides (tests). */
export function systemConfig(input: SystemConfigInput = {}): SystemConfig {
  return SystemConfigSchema.parse(input);
}
