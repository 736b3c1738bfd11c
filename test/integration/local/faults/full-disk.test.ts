// Every write path of the API on a full disk (a small tmpfs holding the data directory): each
// answers 500 naming ENOSPC, leaves no temp file behind, and the next start loads what was there.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, rmdir, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callerHeaders, createTestApp, type Caller, type TestApp } from '../../../../lib/testing.ts';
import { agent, CHAT_SCOPE, INSTANCE_BODY, SERIALS } from '../../../unit/tickets/fixtures.ts';
import { withCheapHashing } from '../../../unit/users/support.ts';

const run = promisify(execFile);
const s = suite('a full disk: every write path');
/** Mounting needs root (and a kernel that lets this container mount); the tests say so when it cannot. */
let usable = process.getuid?.() === 0;
let skipReason = 'mounting a tmpfs needs root';

let mountPoint = '';
let t: TestApp;
const ids: { site: string; tunnel: string; webhook: string; instance: string } = { site: '', tunnel: '', webhook: '', instance: '' };

const appDir = () => join(mountPoint, 'app');
const filler = () => join(mountPoint, 'filler');
const reopen = async () => {
  await t.close({ keep: true });
  t = withCheapHashing(await createTestApp({ dir: appDir() }));
};

s.before(async () => {
  if (!usable) return;
  mountPoint = await mkdtemp(join(tmpdir(), 'relay-full-disk-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', mountPoint]);
  } catch (error) {
    usable = false;
    skipReason = `mount -t tmpfs failed: ${(error as { stderr?: string }).stderr?.trim()}`;
    await rmdir(mountPoint);
    return;
  }
  t = await createTestApp({ dir: appDir() });
  await t.completeOnboarding();
  await t.addAgent('alice', ['chat:send'], [], SERIALS['alice']);
  await t.addAgent('bob', ['chat:send'], [], SERIALS['bob']);
  const created = await Promise.all([
    t.call('POST', '/api/sites', { body: { name: 'blog', type: 'managed' } }),
    t.call('POST', '/api/tunnels', { body: { subdomain: 'keep', port: 7000 } }),
    t.call('POST', '/api/alerts/webhooks', { body: { url: 'https://hooks.example.com/relay', events: ['tunnel.down'] } }),
    t.call('POST', '/api/tickets/scopes', { body: CHAT_SCOPE }),
  ]);
  assert.equal(created.map((r) => r.status), [201, 201, 201, 201], JSON.stringify(created.map((r) => r.body)));
  [ids.site, ids.tunnel, ids.webhook] = [created[0]!.body.site.id, created[1]!.body.tunnel.id, created[2]!.body.webhook?.id ?? created[2]!.body.id];
  const instance = await t.call('POST', '/api/tickets/instances', { as: agent('alice'), body: INSTANCE_BODY });
  assert.is(instance.status, 201, JSON.stringify(instance.body));
  ids.instance = instance.body.instanceId;
  assert.is((await t.call('POST', '/api/tickets/assignments', { body: { agentLabel: 'bob', instanceScope: instance.body.instanceScope } })).status, 201);
  // a new start appends to new journal files: no write below can land in the slack of a page the old ones hold
  await reopen();
  const { bavail, bsize } = await statfs(mountPoint);
  await writeFile(filler(), Buffer.alloc(Number(bavail) * Number(bsize)));
});

s.after(async () => {
  if (!usable) return;
  await t?.close({ keep: true }).catch(() => {});
  await run('umount', [mountPoint]).catch(() => run('umount', ['-l', mountPoint]));
  await rmdir(mountPoint);
});

type Call = { method: string; path: () => string; body?: unknown | (() => unknown); as?: Caller; upload?: true };
const WRITE_PATHS: [string, Call][] = [
  ['tunnels: create', { method: 'POST', path: () => '/api/tunnels', body: { subdomain: 'app', port: 8080 } }],
  ['tunnels: disable', { method: 'PATCH', path: () => `/api/tunnels/${ids.tunnel}`, body: { enabled: false } }],
  ['sites: create', { method: 'POST', path: () => '/api/sites', body: { name: 'shop', type: 'managed' } }],
  ['sites: settings', { method: 'PATCH', path: () => `/api/sites/${ids.site}`, body: { spaMode: true } }],
  ['sites: file upload', { method: 'POST', path: () => `/api/sites/${ids.site}/files`, upload: true }],
  ['users: create', { method: 'POST', path: () => '/api/users', body: { username: 'dana', displayname: 'Dana', email: 'dana@example.test', password: 'dana-password-1', groups: [] } }],
  ['agent certificates: issue', { method: 'POST', path: () => '/api/certs/agent', body: { label: 'ci', capabilities: ['tunnels:read'], allowedSites: [] } }],
  ['agent certificates: capabilities', { method: 'PATCH', path: () => '/api/certs/agent/alice/capabilities', body: { capabilities: ['chat:send', 'tunnels:read'] } }],
  ['ticket scopes: register', { method: 'POST', path: () => '/api/tickets/scopes', body: { ...CHAT_SCOPE, name: 'files', scopes: [{ name: 'files:get', description: 'Get files', instanceScoped: false }] } }],
  ['tickets: request', { method: 'POST', path: () => '/api/tickets', as: agent('alice'), body: () => ({ scope: 'chat:send', instanceId: ids.instance, target: 'bob' }) }],
  ['invitations: create', { method: 'POST', path: () => '/api/invitations', body: { username: 'erin', email: 'erin@example.test' } }],
  ['webhooks: create', { method: 'POST', path: () => '/api/alerts/webhooks', body: { url: 'https://hooks.example.com/second', events: ['tunnel.up'] } }],
  ['webhooks: change', { method: 'PATCH', path: () => `/api/alerts/webhooks/${ids.webhook}`, body: { enabled: false } }],
  ['plugins: push-install config', { method: 'PATCH', path: () => '/api/plugins/push-install/config', body: { enabled: true } }],
  ['plugins: push-install policy', { method: 'POST', path: () => '/api/plugins/push-install/policies', body: { name: 'basic', allowedPlugins: ['@acme/hello'] } }],
  ['settings: 2fa setup', { method: 'POST', path: () => '/api/settings/2fa/setup' }],
];

async function send(call: Call): Promise<{ status: number; body: any }> {
  if (!call.upload) return t.call(call.method, call.path(), { as: call.as, body: typeof call.body === 'function' ? call.body() : call.body });
  const form = new FormData();
  form.append('file', new Blob(['<h1>hello</h1>'.repeat(500)]), 'index.html');
  const response = await t.app.fetch(new Request(`http://panel.test${call.path()}`, { method: 'POST', body: form, headers: callerHeaders('admin') }));
  return { status: response.status, body: await response.json() };
}

/** Temp files of the atomic writer (`.<name>.<pid>.<random>.tmp`) anywhere under `dir`. */
async function tempFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir, { recursive: true });
  return names.filter((name) => name.endsWith('.tmp'));
}

for (const [name, call] of WRITE_PATHS) {
  s(`${name}: 500 naming ENOSPC, no temp file left`, async () => {
    if (!usable) return console.log(`  skipped (${name}): ${skipReason}`);
    const { status, body } = await send(call);
    assert.is(status, 500, `${name}: ${status} ${JSON.stringify(body)}`);
    assert.match(`${body.error} ${JSON.stringify(body.details)}`, 'ENOSPC', JSON.stringify(body));
    assert.equal(Object.keys(body).sort(), body.details === undefined ? ['error'] : ['details', 'error']);
    assert.equal(await tempFiles(appDir()), []);
  });
}

s('once there is room again, the next start loads every collection as it was before the disk filled', async () => {
  if (!usable) return console.log(`  skipped: ${skipReason}`);
  await rm(filler());
  await reopen();
  assert.equal((await t.call('GET', '/api/tunnels')).body.tunnels.map((x: { subdomain: string; enabled: boolean }) => [x.subdomain, x.enabled]), [['keep', true]]);
  assert.equal((await t.call('GET', '/api/sites')).body.sites.map((x: { name: string }) => x.name), ['blog']);
  assert.equal((await t.call('GET', '/api/tickets/scopes')).body.scopes.map((x: { name: string }) => x.name), ['chat']);
  assert.equal((await t.call('GET', '/api/invitations')).body.invitations, []);
  assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: 8080 } })).status, 201, 'writes work again');
});

s.run();
