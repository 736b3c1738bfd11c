// The loopback integration harness (recipes/loopback-infra.md): dnsmasq, pebble and nginx on free
// 127.0.0.1 ports inside a temp prefix. Start it once per test file; stop() ends every child by
// PID and removes the prefix. Nothing here ever talks to an address outside loopback.
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { promises as dns } from 'node:dns';
import { systemConfig, type SystemConfig, type SystemConfigInput } from '../../lib/system/config.ts';
import { loopbackRequest } from './http.ts';
import { freePorts } from './ports.ts';
import { isRunning, startProcess, stopProcess, waitFor, type Managed } from './processes.ts';

const run = promisify(execFile);

export const TEST_DOMAIN = 'example.test';
/** a name with an AAAA record only, so an A lookup answers NODATA */
export const V6_ONLY = 'v6only.test';

export interface InfraPorts {
  dns: number;
  http: number;
  https: number;
  ipPanel: number;
  pebble: number;
  pebbleManagement: number;
  /** free ports the test may use for its own backends */
  panel: number;
  tunnelServer: number;
  authPortal: number;
}

export interface Infra {
  dir: string;
  ports: InfraPorts;
  nginxPrefix: string;
  /** pebble's root for this run: clients that verify issued certificates trust it */
  pebbleRoot: string;
  /** a host-driver system configuration pointing at this infrastructure */
  systemConfig(overrides?: SystemConfigInput): SystemConfig;
  /** dnsmasq hosts-format records, picked up without a restart */
  addHostRecord(name: string, ip: string): Promise<void>;
  stop(): Promise<void>;
}

export interface InfraOptions {
  /**
   * The server pebble resolves names through (`host:port`); dnsmasq's unless given. A DNS-01 test
   * gives an authoritative server that takes RFC 2136 updates, so pebble reads the TXT records.
   */
  pebbleDnsServer?: string;
}

/**
 * Where the infrastructure's directory goes: nginx's workers and dnsmasq run as nobody and must pass
 * through every directory above the ACME webroot and the hosts file, and a TMPDIR may be a 0700
 * directory of its own (test/run.mjs's lanes get a 1777 one, as /tmp is; a caller's may not be).
 */
async function passableTmp(): Promise<string> {
  const base = tmpdir();
  if (((await stat(base)).mode & 0o001) !== 0) return base;
  return existsSync('/dev/shm') ? '/dev/shm' : '/tmp';
}

export async function startInfra(options: InfraOptions = {}): Promise<Infra> {
  const dir = await mkdtemp(join(await passableTmp(), 'relay-infra-'));
  // dnsmasq drops to nobody and must still read its hostsdir
  await chmod(dir, 0o755);
  const [dnsPort, http, https, ipPanel, pebble, pebbleManagement, panel, tunnelServer, authPortal] = await freePorts(9);
  const ports: InfraPorts = { dns: dnsPort!, http: http!, https: https!, ipPanel: ipPanel!, pebble: pebble!, pebbleManagement: pebbleManagement!, panel: panel!, tunnelServer: tunnelServer!, authPortal: authPortal! };
  const paths = {
    run: join(dir, 'run'),
    hostsDir: join(dir, 'dns', 'hosts.d'),
    dnsConf: join(dir, 'dns', 'dnsmasq.conf'),
    pebbleDir: join(dir, 'pebble'),
    nginx: join(dir, 'nginx'),
    certbot: join(dir, 'certbot'),
  };
  for (const d of [paths.run, paths.hostsDir, paths.pebbleDir, join(paths.certbot, 'config'), join(paths.certbot, 'work'), join(paths.certbot, 'logs')]) {
    await mkdir(d, { recursive: true });
  }
  for (const d of ['logs', 'tmp', 'webroot', 'sites-available', 'sites-enabled', 'help', 'self-signed']) await mkdir(join(paths.nginx, d), { recursive: true });

  await writeFile(paths.dnsConf, dnsmasqConf(ports.dns, paths.hostsDir));
  await makePebbleCert(paths.pebbleDir);
  const pebbleConfig = join(paths.pebbleDir, 'pebble-config.json');
  await writeFile(pebbleConfig, JSON.stringify({
    pebble: {
      listenAddress: `127.0.0.1:${ports.pebble}`,
      managementListenAddress: `127.0.0.1:${ports.pebbleManagement}`,
      certificate: join(paths.pebbleDir, 'wfe.pem'),
      privateKey: join(paths.pebbleDir, 'wfe.key'),
      httpPort: ports.http, // http-01 validation goes to nginx
      tlsPort: ports.https,
      ocspResponderURL: '',
      externalAccountBindingRequired: false,
    },
  }));
  await writeFile(join(paths.nginx, 'nginx.conf'), nginxConf(ports.http, join(paths.nginx, 'webroot')));

  const procs: Managed[] = [];
  const stopAll = async () => {
    for (const p of [...procs].reverse()) await stopProcess(p);
  };
  try {
    const dnsmasq = startProcess('dnsmasq', '/usr/sbin/dnsmasq', ['-k', '-C', paths.dnsConf], join(paths.run, 'dnsmasq.log'));
    procs.push(dnsmasq);
    const pebbleProc = startProcess('pebble', '/usr/bin/pebble', ['-config', pebbleConfig, '-dnsserver', options.pebbleDnsServer ?? `127.0.0.1:${ports.dns}`, '-strict=false'],
      join(paths.run, 'pebble.log'), { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' });
    procs.push(pebbleProc);
    const nginx = startProcess('nginx', '/usr/sbin/nginx', ['-p', paths.nginx, '-c', 'nginx.conf', '-g', 'daemon off;'], join(paths.run, 'nginx.log'));
    procs.push(nginx);

    const wfeCa = await readFile(join(paths.pebbleDir, 'wfe-ca.pem'));
    await waitFor('dnsmasq', () => tcpOpen(ports.dns), dnsmasq);
    await waitFor('nginx', async () => (await loopbackRequest({ port: ports.http, host: 'probe.invalid' })).status > 0, nginx);
    await waitFor('pebble', async () => (await loopbackRequest({ port: ports.pebble, host: 'localhost', path: '/dir', tls: { ca: wfeCa } })).status === 200, pebbleProc, 20_000);
    for (const p of procs) if (!isRunning(p)) throw new Error(`${p.name} died; see ${p.logFile}`);

    const root = await loopbackRequest({ port: ports.pebbleManagement, host: 'localhost', path: '/roots/0', tls: { ca: wfeCa } });
    const pebbleRoot = join(paths.run, 'pebble-root.pem');
    await writeFile(pebbleRoot, root.body);

    const resolver = new dns.Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([`127.0.0.1:${ports.dns}`]);

    return {
      dir,
      ports,
      nginxPrefix: paths.nginx,
      pebbleRoot,
      systemConfig: (overrides = {}) => systemConfig(merge(baseConfig(dir, ports, paths), overrides)),
      async addHostRecord(name, ip) {
        await writeFile(join(paths.hostsDir, name), `${ip} ${name}\n`);
        await waitFor(`dns record ${name}`, async () => (await resolver.resolve4(name)).includes(ip), null, 15_000);
      },
      async stop() {
        await stopAll();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

function baseConfig(dir: string, ports: InfraPorts, paths: { nginx: string; certbot: string; pebbleDir: string }): SystemConfigInput {
  return {
    driver: 'host',
    ports: { http: ports.http, https: ports.https, ipPanel: ports.ipPanel, panel: ports.panel, tunnelServer: ports.tunnelServer, authPortal: ports.authPortal },
    nginx: {
      prefix: paths.nginx,
      conf: join(paths.nginx, 'nginx.conf'),
      sitesAvailable: join(paths.nginx, 'sites-available'),
      sitesEnabled: join(paths.nginx, 'sites-enabled'),
      errorLog: join(paths.nginx, 'logs', 'error.log'),
      listenAddress: '127.0.0.1',
      helpDir: join(paths.nginx, 'help'),
      selfSignedDir: join(paths.nginx, 'self-signed'),
      // the root helper's copies of TLS material, never the host's /etc/nginx
      tlsDir: join(paths.nginx, 'relay-panel-tls'),
      reloadWith: 'signal',
      // the master found through its pid file: a reload waits for the new workers (or the master's
      // refusal in its log), not a fixed second of the log per reload
      pidFile: join(paths.nginx, 'logs', 'nginx.pid'),
      reloadCheckMs: 1000,
    },
    acme: {
      server: `https://127.0.0.1:${ports.pebble}/dir`,
      configDir: join(paths.certbot, 'config'),
      workDir: join(paths.certbot, 'work'),
      logsDir: join(paths.certbot, 'logs'),
      webroot: join(paths.nginx, 'webroot'),
      caBundle: join(paths.pebbleDir, 'wfe-ca.pem'),
    },
    dns: { servers: [`127.0.0.1:${ports.dns}`], timeoutMs: 1000, tries: 1 },
    pki: { dir: join(dir, 'pki') },
    chisel: { dir: join(dir, 'chisel') },
    authelia: { dir: join(dir, 'authelia') },
    systemd: { unitDir: join(dir, 'systemd') },
    sites: { root: join(dir, 'sites') },
    timeouts: { defaultMs: 20_000, certbotMs: 60_000, downloadMs: 10_000 },
  };
}

function merge(base: SystemConfigInput, over: SystemConfigInput): SystemConfigInput {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = (base as Record<string, unknown>)[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' ? { ...b, ...v } : v;
  }
  return out as SystemConfigInput;
}

function dnsmasqConf(port: number, hostsDir: string): string {
  return `# loopback-only test DNS: answers ${TEST_DOMAIN} locally, never forwards
port=${port}
listen-address=127.0.0.1
bind-interfaces
no-resolv
no-poll
no-hosts
address=/${TEST_DOMAIN}/127.0.0.1
# an IPv6-only name: its A query is NODATA (the name exists), not NXDOMAIN
host-record=${V6_ONLY},::1
local=/test/
local=/${TEST_DOMAIN}/
address=/#/
hostsdir=${hostsDir}
local-ttl=0
log-facility=-
pid-file=
`;
}

function nginxConf(httpPort: number, webroot: string): string {
  return `# self-contained nginx for tests (run with -p <prefix> -c nginx.conf)
worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log info;
events { worker_connections 256; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log logs/access.log;
    ssl_protocols TLSv1.2 TLSv1.3;
    client_body_temp_path tmp/client_body;
    proxy_temp_path tmp/proxy;
    fastcgi_temp_path tmp/fastcgi;
    uwsgi_temp_path tmp/uwsgi;
    scgi_temp_path tmp/scgi;
    # ACME http-01 for names that have no vhost yet, until relay-default.conf (written with the
    # stack's vhosts) claims default_server: first in the file, so the port's default until then
    server {
        listen 127.0.0.1:${httpPort};
        # not "_", which relay-default.conf names: two servers of one port may not share a name
        server_name harness-fallback.invalid;
        location ^~ /.well-known/acme-challenge/ { root "${webroot}"; default_type text/plain; try_files $uri =404; }
        location / { return 404 "no vhost\\n"; }
    }
    include sites-enabled/*.conf;
}
`;
}

async function makePebbleCert(dir: string): Promise<void> {
  const o = (args: string[]) => run('/usr/bin/openssl', args, { cwd: dir });
  await o(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '30', '-subj', '/CN=pebble-wfe-test-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-keyout', 'wfe-ca.key', '-out', 'wfe-ca.pem']);
  await o(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '30', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-addext', 'extendedKeyUsage=serverAuth', '-addext', 'basicConstraints=critical,CA:FALSE',
    '-CA', 'wfe-ca.pem', '-CAkey', 'wfe-ca.key', '-keyout', 'wfe.key', '-out', 'wfe.pem']);
}

function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
