// The sandbox in a browser: its own server answers a tunnel's name (proxied to the tunnel's port)
// and a managed site's (its files), feeds the traffic meter, links to itself, and leaves every
// other name to the panel. A real host's composition never dispatches (nginx does).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Config } from '../../../lib/config.ts';
import { start, type RunningServer } from '../../../lib/main.ts';
import { PublicLinks } from '../../../lib/public-links.ts';
import { sandboxWeb } from '../../../lib/sandbox-web/dispatch.ts';
import { sandboxPaths } from '../../../lib/system/sandbox/paths.ts';
import { rawExchange, rawHead } from '../../helpers/raw-http.ts';
import { freePorts } from '../../infra/ports.ts';
import { writeOnboardedConfig } from '../../helpers/onboarded-config.ts';

const DOMAIN = 'relay.localhost';
const s = suite('sandbox web: tunnel and site names answered by the sandbox server');

let dir: string;
let running: RunningServer;
let port: number;
let upstream: Server;
let upstreamSaw: IncomingHttpHeaders | undefined;
let tunnelPort: number;
let siteDir: string;
const CREATED = '2026-11-28T00:00:00.000Z';
const APP_ID = '0b6f1f9e-8c1e-4b5e-9d1a-2f0c5d7e8a11';
const GONE_ID = '0b6f1f9e-8c1e-4b5e-9d1a-2f0c5d7e8a12';
const SITE_ID = '0b6f1f9e-8c1e-4b5e-9d1a-2f0c5d7e8a13';

interface Answer { status: number; headers: IncomingHttpHeaders; body: string }

/** What a browser resolving `*.localhost` itself sends: the name and port in Host, to 127.0.0.1. */
function get(host: string, path: string, method = 'GET', body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `${host}:${port}` };
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const api = async (method: string, path: string, body?: unknown) => {
  const answer = await get('127.0.0.1', path, method, body === undefined ? undefined : JSON.stringify(body));
  return { status: answer.status, body: answer.body ? JSON.parse(answer.body) : undefined };
};

s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-sandbox-web-'));
  upstream = createServer((req, res) => {
    upstreamSaw = req.headers;
    res.setHeader('content-type', 'text/plain');
    res.end(`app behind the tunnel: ${req.method} ${req.url}`);
  });
  await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
  tunnelPort = (upstream.address() as AddressInfo).port;
  // the records as the API writes them (creating them through it costs a second each in the sandbox)
  await mkdir(join(dir, 'data'), { recursive: true });
  const tunnel = (id: string, subdomain: string, port: number) => ({ id, subdomain, fqdn: `${subdomain}.${DOMAIN}`, port, description: null, enabled: true, createdAt: CREATED });
  const [closed] = await freePorts(1);
  await writeFile(join(dir, 'data', 'tunnels.json'), JSON.stringify([tunnel(APP_ID, 'app', tunnelPort), tunnel(GONE_ID, 'gone', closed!)]));
  siteDir = join(sandboxPaths(join(dir, 'data')).sites, SITE_ID);
  await writeFile(join(dir, 'data', 'sites.json'), JSON.stringify([{
    id: SITE_ID, name: 'docs', fqdn: `docs.${DOMAIN}`, type: 'managed', spaMode: false, autheliaProtected: false, allowedUsers: [],
    dnsVerified: true, certIssued: true, rootPath: siteDir, createdAt: CREATED, totalSize: 0,
  }]));
  const config = await writeOnboardedConfig(dir, { ip: '127.0.0.1', domain: DOMAIN });
  running = await start({ argv: ['--config', config], env: { NODE_ENV: 'development', LOG_LEVEL: 'error' }, cwd: dir });
  port = Number(new URL(running.url).port);
});

s.after(async () => {
  await running?.stop();
  await new Promise((ok) => upstream?.close(ok));
  await rm(dir, { recursive: true, force: true });
});

s('a tunnel name is proxied to the tunnel port, with the headers nginx would set', async () => {
  const answer = await get(`app.${DOMAIN}`, '/hello?x=1');
  assert.is(answer.status, 200);
  assert.is(answer.body, 'app behind the tunnel: GET /hello?x=1');
  assert.is(upstreamSaw?.host, `app.${DOMAIN}:${port}`);
  assert.is(upstreamSaw?.['x-forwarded-host'], `app.${DOMAIN}:${port}`);
  assert.is(upstreamSaw?.['x-forwarded-for'], '127.0.0.1');
});

s('a tunnel whose port has no listener is a 502 with a short page', async () => {
  const answer = await get(`gone.${DOMAIN}`, '/');
  assert.is(answer.status, 502);
  assert.match(answer.body, 'Nothing answers on this tunnel');
});

s("a managed site's name serves its files; traversal is refused; an unknown path is 404", async () => {
  await mkdir(join(siteDir, 'guide'), { recursive: true });
  await writeFile(join(siteDir, 'index.html'), '<h1>docs home</h1>');
  await writeFile(join(siteDir, 'guide', 'index.html'), '<h1>guide</h1>');
  await writeFile(join(siteDir, 'notes.txt'), 'plain notes');
  const home = await get(`docs.${DOMAIN}`, '/');
  assert.equal([home.status, home.headers['content-type'], home.body], [200, 'text/html; charset=utf-8', '<h1>docs home</h1>']);
  assert.is((await get(`docs.${DOMAIN}`, '/guide/')).body, '<h1>guide</h1>');
  assert.is((await get(`docs.${DOMAIN}`, '/notes.txt')).body, 'plain notes');
  assert.is((await get(`docs.${DOMAIN}`, '/missing.html')).status, 404);
  // a file next to the sites' folder: what a traversal would reach
  await writeFile(join(siteDir, '..', 'secret.txt'), 'not of the site');
  for (const target of ['/../secret.txt', '/..%2fsecret.txt', '/guide/..%2f..%2fsecret.txt', '/%2e%2e/secret.txt']) {
    const raw = await rawExchange(port, rawHead('GET', target, [['host', `docs.${DOMAIN}:${port}`], ['connection', 'close']]));
    assert.is(raw.status, 400, target);
    assert.not.match(raw.body, 'not of the site');
  }
});

s('the panel name and unknown names fall through to the panel; its links point at this server', async () => {
  const health = await get(`nothing.${DOMAIN}`, '/api/health');
  assert.is(health.status, 200);
  // the admin API answers on panel.<domain> (a *.localhost name is loopback in development mode)
  const tunnels = await get(`panel.${DOMAIN}`, '/api/tunnels');
  assert.is(tunnels.status, 200, tunnels.body);
  const status = await api('GET', '/api/onboarding/status');
  assert.equal([status.body.suggestedDomain, status.body.publicLinks], [DOMAIN, { scheme: 'http', port }]);
  const invited = await api('POST', '/api/invitations', { username: 'dana', email: 'dana@example.test', groups: [] });
  assert.is(invited.status, 201, JSON.stringify(invited.body));
  const link = new URL(invited.body.inviteUrl);
  assert.is(link.origin, `http://panel.${DOMAIN}:${port}`);
  const page = await get(link.hostname, link.pathname);
  assert.is(page.status, 200);
  assert.match(String(page.headers['content-type']), 'text/html');
});

s("the requests answered feed the tunnels' and sites' traffic", async () => {
  // the last hour, not the last minute: a loaded machine may take a minute from the first test to this one
  const meter = running.app.services.traffic;
  const before = meter.traffic(`app:app.${DOMAIN}`).lastHour.requests;
  assert.ok(before >= 1, `the first test requested the tunnel; lines not counted: ${JSON.stringify(meter.dropped())}`);
  await get(`app.${DOMAIN}`, '/again');
  const tunnel = meter.traffic(`app:app.${DOMAIN}`).lastMinute;
  assert.is(meter.traffic(`app:app.${DOMAIN}`).lastHour.requests, before + 1);
  assert.ok(tunnel.requests >= 1);
  assert.ok(tunnel.bytesOut > 'app behind the tunnel: GET /again'.length, 'headers and body');
  assert.ok(tunnel.bytesIn > 0);
  assert.is(meter.traffic(`app:gone.${DOMAIN}`).lastHour.unreachable, 1);
  const site = meter.traffic(`site:docs.${DOMAIN}`).lastHour;
  assert.ok(site.requests >= 4, `site requests: ${site.requests}`);
});

s('a real host never dispatches, nor a sandbox in production mode: nginx answers these names there', () => {
  const services = { mode: 'development', publicLinks: new PublicLinks(() => ({ system: { driver: 'host' } }) as Config) };
  assert.is(sandboxWeb(services as Parameters<typeof sandboxWeb>[0]), undefined);
  assert.is(sandboxWeb({ ...running.app.services, mode: 'production' }), undefined);
  assert.is(typeof sandboxWeb(running.app.services), 'function');
});

s.run();
