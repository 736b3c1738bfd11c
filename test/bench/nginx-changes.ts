// `npm run bench -- --only=nginx-changes`: concurrent vhost changes on a real nginx of its own with
// 1,000 TLS vhosts (two servers each, as the panel writes them: a port-80 redirect and a TLS server
// with its own certificate directives), through the panel's VhostStore and the host adapter's test
// and reload (which waits for the new workers). Ten changes one at a time (each its own nginx -t
// and reload, as before group commit) against the same ten at once (group commit), interleaved,
// in one run, with a lone change's latency and the load average.
// Run alone: node --import ./test/helpers/register.mjs test/bench/nginx-changes.ts [--vhosts=1000] [--changes=10] [--rounds=2]
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { routesDirOf, systemConfig } from '../../lib/system/config.ts';
import { hostNginxControl } from '../../lib/system/proxy/host.ts';
import { nginxMasterPid } from '../../lib/system/proxy/nginx-proc.ts';
import { VhostStore } from '../../lib/system/proxy/vhost-store.ts';
import type { VhostChange, VhostSpec } from '../../lib/system/types.ts';
import { freePorts } from '../infra/ports.ts';
import { startProcess, stopProcess, waitFor } from '../infra/processes.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const VHOSTS = arg('vhosts', 1000);
const CHANGES = arg('changes', 10);
const ROUNDS = arg('rounds', 2);
const load1 = () => loadavg()[0] ?? 0;

const dir = await mkdtemp(join(tmpdir(), 'relay-bench-nginx-'));
for (const d of ['logs', 'tmp', 'sites-available', 'sites-enabled']) await mkdir(join(dir, d));
const [http, https] = await freePorts(2);
execFileSync('/usr/bin/openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=bench',
  '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
await writeFile(join(dir, 'nginx.conf'), `worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log;
events { worker_connections 256; }
http {
    access_log off;
    server_names_hash_bucket_size 128;
    client_body_temp_path tmp/cb; proxy_temp_path tmp/p; fastcgi_temp_path tmp/f; uwsgi_temp_path tmp/u; scgi_temp_path tmp/s;
    include sites-enabled/*.conf;
}
`);

const render = async (spec: VhostSpec) => {
  const { fqdn, port } = spec as { fqdn: string; port: number };
  return `server {
    listen 127.0.0.1:${http};
    server_name ${fqdn};
    location / { return 301 https://$host$request_uri; }
}
server {
    listen 127.0.0.1:${https} ssl;
    server_name ${fqdn};
    ssl_certificate ${join(dir, 'cert.pem')};
    ssl_certificate_key ${join(dir, 'key.pem')};
    ssl_protocols TLSv1.2 TLSv1.3;
    location / {
        proxy_pass http://127.0.0.1:${port};
        proxy_http_version 1.1;
        proxy_set_header Host $host;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $http_connection;
    }
}
`;
};
const config = systemConfig({
  driver: 'host',
  nginx: {
    prefix: dir, conf: join(dir, 'nginx.conf'), sitesAvailable: join(dir, 'sites-available'), sitesEnabled: join(dir, 'sites-enabled'),
    errorLog: join(dir, 'logs', 'error.log'), pidFile: join(dir, 'logs', 'nginx.pid'), listenAddress: '127.0.0.1', reloadTimeoutMs: 120_000,
  },
  timeouts: { defaultMs: 120_000 },
});
const store = new VhostStore({ availableDir: config.nginx.sitesAvailable, enabledDir: config.nginx.sitesEnabled, routesDir: routesDirOf(config), render, ...hostNginxControl(config) });
const spec = (name: string, i: number): VhostSpec => ({ kind: 'app', fqdn: `${name}.example.test`, port: 20000 + (i % 40000) });
const put = (s: VhostSpec): VhostChange => ({ op: 'put', spec: s, enabled: true });

const nginx = startProcess('nginx', '/usr/sbin/nginx', ['-p', dir, '-c', 'nginx.conf', '-e', 'logs/error.log', '-g', 'daemon off;'], join(dir, 'nginx.out'));
// an interrupted bench leaves no nginx behind
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopProcess(nginx).finally(() => process.exit(130)));
try {
  await waitFor('nginx', async () => (await nginxMasterPid(config.nginx.pidFile)) !== null, nginx);
  let t = performance.now();
  await store.apply(Array.from({ length: VHOSTS }, (_, i) => put(spec(`t${i}`, i))));
  console.log(`nginx-changes: ${VHOSTS} vhosts written, tested and reloaded in ${((performance.now() - t) / 1000).toFixed(2)} s`);
  t = performance.now();
  await hostNginxControl(config).test();
  const testS = (performance.now() - t) / 1000;
  t = performance.now();
  await hostNginxControl(config).reload();
  const reloadS = (performance.now() - t) / 1000;
  console.log(`  nginx -t ${testS.toFixed(2)} s; a reload until the new workers run ${reloadS.toFixed(2)} s (load ${load1().toFixed(2)})`);

  const changes = (round: number, mode: string) => Array.from({ length: CHANGES }, (_, i) => spec(`c${round}-${mode}-${i}`, i));
  const undo = (specs: VhostSpec[]) => store.apply(specs.map((s) => ({ op: 'remove', name: store.vhostName(s) })));
  const rows: { mode: string; s: number; load: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 === 0 ? ['one-each', 'together'] : ['together', 'one-each']) {
      const specs = changes(round, mode);
      const load = load1();
      t = performance.now();
      if (mode === 'one-each') for (const s of specs) await store.apply([put(s)]);
      else await Promise.all(specs.map((s) => store.apply([put(s)])));
      rows.push({ mode, s: (performance.now() - t) / 1000, load });
      await undo(specs);
    }
  }
  t = performance.now();
  await store.apply([put(spec('lone', 0))]);
  const loneS = (performance.now() - t) / 1000;
  for (const r of rows) console.log(`  ${CHANGES} changes ${r.mode.padEnd(9)} ${r.s.toFixed(2)} s (load ${r.load.toFixed(2)})`);
  const mean = (mode: string) => rows.filter((r) => r.mode === mode).reduce((a, r) => a + r.s, 0) / ROUNDS;
  console.log(`  together / one at a time: ${(mean('together') / mean('one-each')).toFixed(2)}x; a lone change ${loneS.toFixed(2)} s`);
} finally {
  await stopProcess(nginx);
  await rm(dir, { recursive: true, force: true });
}
