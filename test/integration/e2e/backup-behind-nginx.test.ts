// End to end: the bundle in production mode behind the real nginx mTLS front. A provisioned box
// with a tunnel, a site with files, a portal user, an agent and a ticket scope is backed up while
// it runs (`server.mjs backup`), stopped, restored into an empty dir on another port
// (`server.mjs restore`), and started there; the front now points at the new port. The restored
// box answers the same lists, and the agent certificate issued before the backup still gets 200.
// The panel runs its sandbox system (chisel and Authelia are played, not run).
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error plain JS build script
import { bundle } from '../../../build/build.mjs';
import { routes } from '../../../handlers/index.ts';
import { publicLocations } from '../../../lib/http/public-locations.ts';
import { createSystem, type IssuedClientCert, type System } from '../../../lib/system/index.ts';
import { timed } from '../../helpers/timeout.ts';
import { startInfra, type Infra } from '../../infra/harness.ts';
import { loopbackRequest, type TestResponse } from '../../infra/http.ts';
import { freePorts } from '../../infra/ports.ts';
import { startPanelBundle, stopProcess, waitFor, type Managed } from '../../infra/processes.ts';

const s = suite('e2e: backup a running box, restore it on another port, behind nginx');
let infra: Infra;
let front: System;
let admin: IssuedClientCert;
let agent: IssuedClientCert;
let server: string;
let panel: Managed | undefined;

s.before(async () => {
  infra = await startInfra();
  front = frontSystem(infra.ports.panel);
  admin = await front.pki.issueClientCert('admin');
  agent = await front.pki.issueClientCert('agent:laptop-1');
  await front.proxy.apply([{ op: 'put', spec: { kind: 'ip-panel' }, enabled: true }]);
  server = join(infra.dir, 'server.mjs');
  await bundle({ outfile: server, quiet: true });
});

s.after(async () => {
  await stopPanel();
  await infra?.stop();
});

/** The nginx front, proxying the IP panel vhost to the panel on `port`. */
function frontSystem(port: number): System {
  return createSystem(infra.systemConfig({ ports: { panel: port } }), { dataDir: join(infra.dir, 'front'), publicLocations: publicLocations(routes) });
}

async function startPanel(config: string): Promise<void> {
  panel = startPanelBundle(server, config, join(infra.dir, 'panel.log'));
  await waitFor('panel through nginx', async () => (await call('GET', '/api/health').catch(() => ({ status: 0 }))).status === 200, panel, 15_000);
}

async function stopPanel(): Promise<void> {
  if (panel) await stopProcess(panel);
}

function cli(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [server, ...args], { env: { ...process.env, LOG_LEVEL: 'error' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

function call(method: string, path: string, body?: unknown, cert: IssuedClientCert = admin): Promise<TestResponse> {
  const json = body === undefined ? undefined : JSON.stringify(body);
  return loopbackRequest({
    port: infra.ports.ipPanel,
    host: 'relay-ip-panel.test',
    path,
    method,
    headers: json ? { 'content-type': 'application/json' } : {},
    body: json,
    tls: { rejectUnauthorized: false, cert: cert.certPem, key: cert.keyPem },
  });
}

async function writeConfig(dir: string, port: number, onboarding: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify({
    ip: '127.0.0.1', domain: 'example.test', email: 'ops@example.test', dataDir: join(dir, 'data'),
    onboarding: { status: onboarding }, listen: { host: '127.0.0.1', port },
  }));
  return file;
}

s('backup while running, restore elsewhere: same lists, the old agent certificate gets 200', timed(120_000, async () => {
  const boxA = join(infra.dir, 'box-a');
  const configA = await writeConfig(boxA, infra.ports.panel, 'DNS_READY');
  await mkdir(join(boxA, 'data'), { recursive: true });
  await writeFile(join(boxA, 'data', 'agents.json'), JSON.stringify([
    { label: 'laptop-1', serial: agent.serial, capabilities: ['tunnels:read', 'sites:read'], allowedSites: [], createdAt: new Date().toISOString(), expiresAt: null, revokedAt: null },
  ]));
  await startPanel(configA);
  assert.is((await call('POST', '/api/onboarding/provision')).status, 202);
  await waitFor('provisioning', async () => JSON.parse((await call('GET', '/api/onboarding/status')).body).status === 'COMPLETED', null, 60_000);

  assert.is((await call('POST', '/api/tunnels', { subdomain: 'app', port: 8080, description: 'my app' })).status, 201);
  const site = await call('POST', '/api/sites', { name: 'blog', type: 'managed' });
  assert.is(site.status, 201, site.body);
  const siteId = JSON.parse(site.body).site.id as string;
  await writeFile(join(boxA, 'data', 'system', 'sites', siteId, 'index.html'), '<h1>blog</h1>');
  assert.is((await call('POST', '/api/users', { username: 'dana', displayname: 'Dana', email: 'dana@example.test', password: 'dana-password-1' })).status, 201);
  assert.is((await call('POST', '/api/tickets/scopes', {
    name: 'chat', version: '1.0.0', description: 'Messages',
    scopes: [{ name: 'chat:send', description: 'Send', instanceScoped: true }],
    transport: { strategies: ['relay'], preferred: 'relay', port: 0, protocol: 'wss' },
  })).status, 201);
  const lists = ['/api/tunnels', '/api/sites', '/api/users', '/api/certs/agent', '/api/tickets/scopes', `/api/sites/${siteId}/files`];
  const before = await Promise.all(lists.map(async (path) => (await call('GET', path)).body));
  assert.is(JSON.parse(before[0]!).tunnels.length, 1);
  assert.equal(JSON.parse(before[2]!).users.map((u: { username: string }) => u.username).includes('dana'), true);
  assert.is((await call('GET', '/api/tunnels', undefined, agent)).status, 200);

  const archive = join(infra.dir, 'box.tar.gz');
  const backup = await cli(['backup', '--config', configA, '--out', archive]);
  assert.is(backup.code, 0, backup.output);
  await stopPanel();

  const [portB] = await freePorts(1);
  const boxB = join(infra.dir, 'box-b');
  const configB = await writeConfig(boxB, portB!, 'FRESH');
  const restored = await cli(['restore', '--config', configB, '--from', archive]);
  assert.is(restored.code, 0, restored.output);
  front = frontSystem(portB!);
  await front.proxy.apply([{ op: 'put', spec: { kind: 'ip-panel' }, enabled: true }]);
  await startPanel(configB);

  const after = await Promise.all(lists.map(async (path) => (await call('GET', path)).body));
  // the site record names box B's sites root now; file times come back as tar keeps them (whole seconds)
  const rebased = (text: string) => JSON.parse(text.replaceAll(boxA, boxB), (key, value) => (key === 'modifiedAt' ? undefined : value));
  for (const [i, path] of lists.entries()) assert.equal(rebased(after[i]!), rebased(before[i]!), path);
  assert.ok(after[1]!.includes(join(boxB, 'data', 'system', 'sites', siteId)), 'the site is served from the restored box');
  const agentCall = await call('GET', '/api/tunnels', undefined, agent);
  assert.is(agentCall.status, 200, 'the agent certificate issued before the backup');
  assert.is(JSON.parse(agentCall.body).tunnels[0].fqdn, 'app.example.test');
  const auditText = (await call('GET', '/api/audit?limit=1000')).body;
  const audit = JSON.parse(auditText).entries as { route?: string; event?: string; outcome?: string }[];
  assert.ok(audit.some((e) => e.route === '/api/tunnels'), 'the audit log came along');
  assert.ok(audit.some((e) => e.event === 'provisioning.started'));
  assert.ok(audit.some((e) => e.event === 'provisioning.finished' && e.outcome === 'completed'));
  assert.not.ok(auditText.includes('dana-password-1'), 'no password in the audit log');
}));

s.run();
