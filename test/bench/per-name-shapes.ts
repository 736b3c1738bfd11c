// `npm run bench -- --only=per-name-shapes`: the two shapes per-name certificates can take at
// 1,000 tunnels, on a real nginx of its own with the panel's own templates and store (the root
// panel's path: runAs null, certbot's files read as they are): a server and TLS context per name,
// against one shared server whose certificate map (sni-map.ts) gives each name its own. For each:
// nginx -t, a reload until the new workers run, a lone change, a disable, an enable, a delete and
// ten changes at once; nginx's memory; and the nginx worker's CPU per full TLS handshake and per
// resumed one, which is what the map costs (nginx 1.22 reads a `data:` certificate at each full
// handshake). Each figure beside the load average.
// Run alone: node --import ./test/helpers/register.mjs test/bench/per-name-shapes.ts [--names=1000] [--handshakes=1000]
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { helperVhostStore } from '../../lib/root-helper/apply.ts';
import { systemConfig } from '../../lib/system/config.ts';
import { hostNginxControl } from '../../lib/system/proxy/host.ts';
import { childPids, nginxMasterPid } from '../../lib/system/proxy/nginx-proc.ts';
import type { VhostChange, VhostSpec } from '../../lib/system/types.ts';
import { ownNginxConf } from '../helpers/own-nginx-conf.ts';
import { freePorts } from '../infra/ports.ts';
import { startProcess, stopProcess, waitFor } from '../infra/processes.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const NAMES = arg('names', 1000);
const HANDSHAKES = arg('handshakes', 1000);
const DOMAIN = 'shapes.test';
const load1 = () => loadavg()[0]!.toFixed(2);
const seconds = async (what: () => Promise<unknown>) => {
  const t = performance.now();
  await what();
  return ((performance.now() - t) / 1000).toFixed(2);
};

async function shape(name: 'server per name' | 'one shared server', shared: boolean): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'relay-bench-shapes-'));
  for (const d of ['logs', 'tmp', 'sites-available', 'sites-enabled', 'self']) await mkdir(join(dir, d));
  const openssl = (cn: string, key: string, cert: string) => execFileSync('/usr/bin/openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', `/CN=${cn}`, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  openssl('relay-default', join(dir, 'self', 'default.key'), join(dir, 'self', 'default.pem'));
  openssl(`*.${DOMAIN}`, join(dir, 'key.pem'), join(dir, 'cert.pem'));
  const fqdn = (i: number | string) => `t${i}.${DOMAIN}`;
  const issue = async (i: number | string) => {
    const live = join(dir, 'le', 'live', fqdn(i));
    await mkdir(live, { recursive: true });
    await copyFile(join(dir, 'cert.pem'), join(live, 'fullchain.pem'));
    await copyFile(join(dir, 'key.pem'), join(live, 'privkey.pem'));
  };
  for (let i = 0; i < NAMES; i++) await issue(i);
  for (const extra of ['lone', ...Array.from({ length: 10 }, (_, i) => `c${i}`)]) await issue(extra);
  const [http, https] = await freePorts(2);
  await writeFile(join(dir, 'nginx.conf'), ownNginxConf().replace('access_log off;', 'access_log off;\n    server_names_hash_bucket_size 128;'));
  const config = systemConfig({
    driver: 'host',
    systemd: { runAs: null },
    acme: { configDir: join(dir, 'le'), webroot: join(dir, 'acme') },
    ports: { http: http!, https: https! },
    nginx: {
      prefix: dir, conf: join(dir, 'nginx.conf'), sitesAvailable: join(dir, 'sites-available'), sitesEnabled: join(dir, 'sites-enabled'),
      selfSignedDir: join(dir, 'self'), tlsDir: join(dir, 'tls'), helpDir: join(dir, 'help'),
      errorLog: join(dir, 'logs', 'error.log'), pidFile: join(dir, 'logs', 'nginx.pid'), listenAddress: '127.0.0.1', reloadTimeoutMs: 120_000, trafficPort: null,
    },
    timeouts: { defaultMs: 120_000 },
  });
  const store = helperVhostStore(config, { exact: [], prefix: [] });
  const spec = (i: number | string): VhostSpec => ({ kind: 'app', fqdn: fqdn(i), port: 20000 + (typeof i === 'number' ? i % 40000 : 1), ...(shared ? { shared: true as const } : {}) });
  const put = (s: VhostSpec, enabled = true): VhostChange => ({ op: 'put', spec: s, enabled });
  const nginx = startProcess('nginx', '/usr/sbin/nginx', ['-p', dir, '-c', 'nginx.conf', '-e', 'logs/error.log', '-g', 'daemon off;'], join(dir, 'nginx.out'));
  try {
    const master = async () => (await nginxMasterPid(config.nginx.pidFile))!;
    await waitFor('nginx', async () => (await nginxMasterPid(config.nginx.pidFile)) !== null, nginx);
    const all = [...(shared ? [put({ kind: 'tunnels', fqdn: DOMAIN, sni: true })] : []), ...Array.from({ length: NAMES }, (_, i) => put(spec(i)))];
    const written = await seconds(() => store.apply(all));
    const control = hostNginxControl(config);
    const test = await seconds(() => control.test());
    const reload = await seconds(() => control.reload());
    const rss = async (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    const m = await master();
    const [worker] = (await childPids(m)) ?? [];
    console.log(`per-name-shapes: ${name}, ${NAMES} names: written, tested and reloaded in ${written} s; nginx -t ${test} s; a reload ${reload} s; `
      + `master RSS ${(await rss(m)).toFixed(0)} MiB, a worker ${(await rss(worker!)).toFixed(0)} MiB (load ${load1()})`);
    const lone = await seconds(() => store.apply([put(spec('lone'))]));
    const disable = await seconds(() => store.apply([{ op: 'disable', name: store.vhostName(spec('lone')) }]));
    const enable = await seconds(() => store.apply([{ op: 'enable', name: store.vhostName(spec('lone')) }]));
    const remove = await seconds(() => store.apply([{ op: 'remove', name: store.vhostName(spec('lone')) }]));
    const ten = await seconds(() => Promise.all(Array.from({ length: 10 }, (_, i) => store.apply([put(spec(`c${i}`))]))));
    console.log(`  a create ${lone} s, a disable ${disable} s, an enable ${enable} s, a delete ${remove} s; ten creates at once ${ten} s (load ${load1()})`);
    const cpu = async () => {
      const [pid] = (await childPids(await master())) ?? [];
      const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    };
    for (const resumed of [false, true]) {
      let session: Buffer | undefined;
      const once = () => new Promise<void>((resolve, reject) => {
        const socket: TLSSocket = connect({ host: '127.0.0.1', port: https!, servername: fqdn(1), rejectUnauthorized: false, ...(resumed && session ? { session } : {}) }, () => socket.end());
        socket.once('session', (s: Buffer) => { session = s; });
        socket.on('error', reject);
        socket.on('close', () => resolve());
      });
      await once();
      const before = await cpu();
      for (let i = 0; i < HANDSHAKES; i++) await once();
      console.log(`  ${resumed ? 'a resumed' : 'a full'} handshake: nginx worker CPU ${(((await cpu()) - before) * 1000 / HANDSHAKES).toFixed(0)} µs (${HANDSHAKES}, load ${load1()})`);
    }
  } finally {
    await stopProcess(nginx);
    await rm(dir, { recursive: true, force: true });
  }
}

await shape('one shared server', true);
await shape('server per name', false);
