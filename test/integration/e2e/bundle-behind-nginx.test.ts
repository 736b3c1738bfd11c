// End to end: the bundled server as a process in production mode, behind the real nginx mTLS front
// (the IP panel vhost our templates render), driven over HTTPS with client certificates from our
// pki, WebSocket included. Nothing is faked here: the bundle runs its sandbox system, so only the
// request path (nginx -> X-SSL-* headers -> identity, gates, handlers) is under test.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { routes } from '../../../handlers/index.ts';
import { publicLocations } from '../../../lib/http/public-locations.ts';
import { createSystem, type IssuedClientCert, type System } from '../../../lib/system/index.ts';
import { timed } from '../../helpers/timeout.ts';
import { startInfra, type Infra } from '../../infra/harness.ts';
import { loopbackRequest, type TestResponse } from '../../infra/http.ts';
import { stopProcess, waitFor, type Managed } from '../../infra/processes.ts';
import { startPanelBehindFront } from '../../infra/panel-behind-front.ts';

const s = suite('e2e: the bundle behind the real nginx mTLS front');
let infra: Infra;
let system: System;
let panel: Managed;
let admin: IssuedClientCert;
let agent: IssuedClientCert;

s.before(async () => {
  infra = await startInfra();
  system = createSystem(infra.systemConfig(), { dataDir: join(infra.dir, 'front'), publicLocations: publicLocations(routes) });
  admin = await system.pki.issueClientCert('admin');
  agent = await system.pki.issueClientCert('agent:laptop-1');
  await system.proxy.apply([{ op: 'put', spec: { kind: 'ip-panel' }, enabled: true }]);

  ({ panel } = await startPanelBehindFront(infra, {
    domain: 'example.test',
    onboarding: 'DNS_READY',
    health: () => get('/api/health'),
    seed: (dataDir) => writeFile(join(dataDir, 'agents.json'), JSON.stringify([
      { label: 'laptop-1', serial: agent.serial, capabilities: ['tunnels:read'], allowedSites: [], createdAt: new Date().toISOString(), expiresAt: null, revokedAt: null },
    ])),
  }));
});

s.after(async () => {
  if (panel) await stopProcess(panel);
  await infra?.stop();
});

// the IP panel's certificate is self-signed: these tests are about the client side
function get(path: string, opts: { cert?: IssuedClientCert; headers?: Record<string, string>; method?: string } = {}): Promise<TestResponse> {
  return loopbackRequest({
    port: infra.ports.ipPanel,
    host: 'relay-ip-panel.test',
    path,
    method: opts.method,
    headers: opts.headers,
    tls: { rejectUnauthorized: false, cert: opts.cert?.certPem, key: opts.cert?.keyPem },
  });
}

function openStream(cert?: IssuedClientCert): WebSocket {
  return new WebSocket(`wss://127.0.0.1:${infra.ports.ipPanel}/api/onboarding/provision/stream`, {
    rejectUnauthorized: false,
    cert: cert?.certPem,
    key: cert?.keyPem,
  });
}

s('health is public; everything else needs a certificate (496 from nginx)', timed(10_000, async () => {
  assert.is((await get('/api/health')).status, 200);
  const denied = await get('/api/onboarding/status');
  assert.is(denied.status, 496);
}));

s('an admin certificate reaches the API as admin; an agent one as that agent', timed(10_000, async () => {
  const status = await get('/api/onboarding/status', { cert: admin });
  assert.is(status.status, 200);
  assert.is(JSON.parse(status.body).status, 'DNS_READY');
  const scoped = await get('/api/onboarding/status', { cert: agent });
  assert.is(scoped.status, 403);
  assert.equal(JSON.parse(scoped.body), { error: 'Insufficient certificate scope' });
}));

s('spoofed X-SSL-* headers never change who the caller is', timed(10_000, async () => {
  const spoofed = await get('/api/onboarding/status', {
    cert: agent,
    headers: { 'X-SSL-Client-Verify': 'SUCCESS', 'X-SSL-Client-DN': 'CN=admin', 'X-SSL-Client-Serial': '1' },
  });
  assert.is(spoofed.status, 403);
}));

s('a browser request from another origin is refused through nginx; the panel page itself passes', timed(10_000, async () => {
  const self = `https://relay-ip-panel.test:${infra.ports.ipPanel}`;
  const post = (headers: Record<string, string>) => get('/api/onboarding/domain', { cert: admin, method: 'POST', headers });
  const foreign = await post({ Origin: 'https://evil.example' });
  assert.equal([foreign.status, JSON.parse(foreign.body)], [403, { error: 'Cross-origin request refused' }]);
  // the host compared with is nginx's $http_host: a client's own X-Forwarded-Host is replaced
  assert.is((await post({ Origin: 'https://evil.example', 'X-Forwarded-Host': 'evil.example' })).status, 403);
  assert.is((await post({ Origin: self, 'Sec-Fetch-Site': 'cross-site' })).status, 403);
  const own = await post({ Origin: self, 'Sec-Fetch-Site': 'same-origin' });
  // past the origin check to the body's validation (no body sent: nothing changes)
  assert.ok([400, 415].includes(own.status), own.body);
}));

s('a path nginx matches as a public location but the URL parser would read as another route is refused', timed(10_000, async () => {
  // nginx takes `..\\onboarding` as one segment under the public /api/invite/ prefix and passes the raw
  // target; the WHATWG URL parser would read the backslash as a slash and land on /api/onboarding/status
  for (const path of ['/api/invite/..\\onboarding\\status', '/api/invite/x/..\\..\\onboarding/status', '/api/enroll/..\\onboarding/status']) {
    const r = await get(path);
    // nginx's 496, or (through the public prefix) the panel's refusal of the target itself
    assert.ok(r.status === 496 || (r.status === 400 && JSON.parse(r.body).error === 'Bad request target'), `${path}: ${r.status} ${r.body}`);
  }
}));

s('management routes answer 503 with the onboarding status before completion', timed(10_000, async () => {
  const gated = await get('/api/tunnels', { cert: admin });
  assert.is(gated.status, 503);
  assert.equal(JSON.parse(gated.body), { error: 'Onboarding not complete', onboardingStatus: 'DNS_READY' });
}));

s('a WebSocket without a certificate is refused by nginx', timed(10_000, async () => {
  const status = await new Promise<number>((resolve, reject) => {
    const ws = openStream();
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => reject(new Error('opened without a certificate')));
    ws.on('error', () => {});
  });
  assert.is(status, 496);
}));

s('over wss with an admin certificate: provisioning streams to completion, then management opens', timed(60_000, async () => {
  const ws = openStream(admin);
  const messages: { type?: string; credentials?: { username: string; password: string } }[] = [];
  const closed = new Promise<number>((resolve, reject) => {
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    ws.on('close', (code) => resolve(code));
    ws.on('error', reject);
  });
  await new Promise<void>((ok) => ws.once('open', () => ok()));
  await waitFor('first state message', async () => messages.length > 0, null, 30_000);
  assert.is(messages[0]?.type, 'state');
  const started = await get('/api/onboarding/provision', { cert: admin, method: 'POST' });
  assert.is(started.status, 202);
  assert.is(await closed, 1000);
  const complete = messages.find((m) => m.type === 'complete');
  assert.is(complete?.credentials?.username, 'admin');
  assert.ok((complete?.credentials?.password.length ?? 0) >= 16);
  const tunnels = await get('/api/tunnels', { cert: agent });
  assert.is(tunnels.status, 200);
  assert.equal(JSON.parse(tunnels.body), { tunnels: [] });
}));

s('after onboarding, over wss: service logs stream through nginx; services and stats answer admins only here', timed(60_000, async () => {
  const ws = new WebSocket(`wss://127.0.0.1:${infra.ports.ipPanel}/api/services/tunnel-server/logs`, { rejectUnauthorized: false, cert: admin.certPem, key: admin.keyPem });
  const lines: { timestamp: string; message: string }[] = [];
  ws.on('message', (data) => lines.push(JSON.parse(String(data))));
  await new Promise<void>((ok, fail) => ws.once('open', () => ok()).once('error', fail));
  await waitFor('the tunnel server journal', async () => lines.some((l) => l.message.includes('chisel')), null, 30_000);
  assert.match(lines[0]!.timestamp, /^\d{4}-\d{2}-\d{2}T.*Z$/);
  ws.close();
  const services = await get('/api/services', { cert: admin });
  assert.is(services.status, 200);
  assert.equal(JSON.parse(services.body).services.map((x: { name: string }) => x.name), ['proxy', 'tunnel-server', 'auth-portal', 'panel']);
  assert.is((await get('/api/system/stats', { cert: admin })).status, 200);
  assert.is((await get('/api/system/stats', { cert: agent })).status, 403, 'the agent lacks system:read');
}));

s('SIGTERM: the bundle stops cleanly with exit 0', timed(15_000, async () => {
  await stopProcess(panel);
  assert.is(panel.child.exitCode, 0, `see ${panel.logFile}`);
}));

s.run();
