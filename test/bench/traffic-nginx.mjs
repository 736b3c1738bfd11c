// A throwaway nginx on loopback for the traffic bench: its own prefix, one server for a
// tunnel's name carrying that vhost's traffic log lines as the panel renders them
// (traffic-log-lines.ts), proxying to a loopback server that plays the tunnel's client; and the
// same server without the traffic log on another port, so the same traffic can flow while the
// panel hears none of it (what the machine's load alone does to the API).
// No root needed on ports above 1024; started and stopped by PID like the bench's other children.
import { execFile } from 'node:child_process';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundle } from '../../build/build.mjs';
import { send } from './http.mjs';
import { startProcess, stopChild } from './proc.mjs';

export const NGINX = '/usr/sbin/nginx';

export const nginxInstalled = () => access(NGINX).then(() => true, () => false);

/** The log_format and access_log lines of the tunnel `fqdn`'s vhost, from the panel's own templates. */
export async function renderedTrafficLines(dir, { fqdn, tunnelPort, trafficPort }) {
  const outfile = join(dir, 'traffic-log-lines.mjs');
  await bundle({ entry: fileURLToPath(new URL('./traffic-log-lines.ts', import.meta.url)), outfile, quiet: true });
  const { stdout } = await promisify(execFile)(process.execPath, [outfile, fqdn, String(tunnelPort), String(trafficPort)]);
  return JSON.parse(stdout);
}

function nginxConf({ port, unloggedPort, fqdn, upstreamPort, lines }) {
  const server = (listen, access) => `
    server {
        listen 127.0.0.1:${listen} default_server;
        server_name ${fqdn};
        ${access}
        location / {
            proxy_pass http://tunnel_client;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
        }
    }`;
  return `# the traffic bench's nginx (run with -p <prefix> -c nginx.conf)
worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path tmp/client_body;
    proxy_temp_path tmp/proxy;
    fastcgi_temp_path tmp/fastcgi;
    uwsgi_temp_path tmp/uwsgi;
    scgi_temp_path tmp/scgi;
    ${lines.format}
    # kept-alive connections to the tunnel's port: 1,000 new ones a second would run the bench
    # out of loopback ports (TIME_WAIT); the panel's cost per line does not depend on it
    upstream tunnel_client { server 127.0.0.1:${upstreamPort}; keepalive 32; }
${server(port, lines.access)}
${server(unloggedPort, '# no traffic log')}
}
`;
}

/**
 * Starts nginx on 127.0.0.1:`port` (logged) and `unloggedPort`; resolves once it answers through
 * to the upstream.
 */
export async function startTrafficNginx(dir, { port, unloggedPort, fqdn, upstreamPort, lines }) {
  for (const d of ['logs', 'tmp']) await mkdir(join(dir, d), { recursive: true });
  await writeFile(join(dir, 'nginx.conf'), nginxConf({ port, unloggedPort, fqdn, upstreamPort, lines }));
  const nginx = startProcess(NGINX, ['-p', dir, '-c', 'nginx.conf', '-e', 'logs/error.log', '-g', 'daemon off;'], { name: 'nginx (traffic)', readyPattern: null });
  await nginx.ready;
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (nginx.child.exitCode !== null) throw new Error(`nginx exited (code ${nginx.child.exitCode}): ${nginx.output.trim()}; see ${join(dir, 'logs/error.log')}`);
    const answer = await send(`${url}/`, { timeoutMs: 1000 }).catch(() => null);
    if (answer?.status === 200) return { url, unloggedUrl: `http://127.0.0.1:${unloggedPort}`, pid: nginx.pid, stop: () => stopChild(nginx) };
    if (Date.now() > deadline) throw new Error(`nginx on ${url}: no 200 within 10 s (last: ${answer?.status ?? 'no answer'}); see ${join(dir, 'logs/error.log')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
