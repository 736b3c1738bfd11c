// Client behaviour the sandbox cannot produce on demand (a failed provisioning run, an upload over
// the size limit, a custom domain resolving elsewhere, a plugin's panel.js, server refusals under
// given fields) or populated pages for axe: the browser plays those routes, in the shapes of the
// real API. The flows through the real API are in features.test.ts, panel.test.ts and invite.test.ts.
import type { Page, WebSocketRoute } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { timed } from '../helpers/timeout.ts';
import { openBrowser, startPanel, type Browser, type PanelServer, expectAccessible, closeBoth } from './harness.ts';

const s = suite('browser: client logic with the browser playing the server (chromium)');
let panel: PanelServer;
let browser: Browser;

s.before(async () => {
  panel = await startPanel();
  browser = await openBrowser();
});

s.after(() => closeBoth(browser, panel));

s.after.each(async () => {
  await browser.page.unrouteAll();
  assert.equal(browser.pageErrors, [], 'no uncaught error in the page');
});

const TITLES: [string, string][] = [
  ['tunnel-server', 'Install the tunnel server'], ['auth-portal', 'Install the authentication portal'], ['certificates', 'Issue TLS certificates'],
  ['vhosts', 'Write the proxy vhosts'], ['services', 'Check the services'], ['complete', 'Complete onboarding'],
];

function taskViews(doneCount: number, failed?: string) {
  return TITLES.map(([task, title], i) => ({
    task, title, status: i < doneCount ? 'done' : task === failed ? 'error' : 'pending',
    message: task === failed ? 'certbot could not issue panel.relay.example.com: rate limited' : '', log: i < doneCount ? `${title}: ok` : '',
  }));
}

function message(type: string, view: { task: string; title: string; status: string; message: string; log: string }, current: number, extra: object = {}) {
  return JSON.stringify({ type, ...view, progress: { current, total: 6 }, ...extra });
}

async function stubJson(page: Page, pattern: string, body: (method: string) => { status: number; json: unknown }) {
  await page.route(pattern, (route) => route.fulfill(body(route.request().method())));
}

s('provisioning: a failed run shows its reason and the task log; Retry runs again to the credentials', timed(30_000, async () => {
  const { page } = browser;
  let stream!: WebSocketRoute;
  let provisionPosts = 0;
  await stubJson(page, '**/api/onboarding/status', () => ({ status: 200, json: { status: 'PROVISIONING', domain: 'relay.example.com', email: 'ops@example.com' } }));
  await page.routeWebSocket('**/api/onboarding/provision/stream', (ws) => {
    stream = ws;
    const tasks = taskViews(2, 'certificates');
    ws.send(message('state', tasks[2]!, 2, { run: 'failed', onboardingStatus: 'PROVISIONING', tasks, error: { task: 'certificates', message: tasks[2]!.message }, startedAt: null, finishedAt: null }));
  });
  await page.route('**/api/onboarding/provision', (route) => {
    provisionPosts++;
    return route.fulfill({ status: 202, json: { ok: true, started: true, status: 'PROVISIONING', message: 'Provisioning started', stream: '/api/onboarding/provision/stream' } });
  });

  await page.goto(panel.url);
  await page.getByText('Provisioning failed: certbot could not issue panel.relay.example.com: rate limited').waitFor();
  assert.match(await page.locator('[data-task=certificates]').innerText(), /error/);
  await expectAccessible(page, 'provisioning-failed');

  const posted = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/onboarding/provision'));
  await page.getByRole('button', { name: 'Retry provisioning' }).click();
  await posted;
  assert.is(provisionPosts, 1);
  const running = taskViews(0);
  stream.send(message('state', running[0]!, 0, { run: 'running', onboardingStatus: 'PROVISIONING', tasks: running, error: null, startedAt: new Date().toISOString(), finishedAt: null }));
  stream.send(message('task', { ...running[0]!, status: 'running', message: 'Installing chisel', log: 'Installing chisel' }, 0));
  await page.locator('[data-task=tunnel-server] .badge', { hasText: 'running' }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Retry provisioning' }).count(), 0);
  stream.send(message('complete', { task: 'complete', title: 'Complete onboarding', status: 'done', message: 'Onboarding complete', log: '' }, 6, {
    credentials: { username: 'admin', password: 'Tq7vWm3kPz9rXc4nHb2s' },
    urls: { panel: 'https://panel.relay.example.com', authPortal: 'https://auth.relay.example.com', ip: 'https://127.0.0.1:9292' },
  }));
  await page.getByRole('heading', { name: 'Provisioning complete' }).waitFor();
  assert.is(await page.getByLabel('Password', { exact: true }).innerText(), 'Tq7vWm3kPz9rXc4nHb2s');
}));

/** GET answers in the real API's shapes, for pages with content the sandbox does not have. */
const NOW = '2026-11-23T10:00:00.000Z';
const BACKUP_PLUGIN = {
  name: 'backup', displayName: 'Backups', packageName: '@acme/backup', version: '1.2.0', description: 'Nightly backups', capabilities: ['backup:run'],
  spec: '@acme/backup', status: 'enabled', installedAt: NOW, enabledAt: NOW,
};

const STUB_GETS: Record<string, unknown> = {
  '/api/onboarding/status': { status: 'COMPLETED', domain: 'relay.example.com', email: 'ops@example.com' },
  '/api/sites': { sites: [
    { id: '0b6f1f9e-8c1e-4b5e-9d1a-2f0c5d7e8a11', name: 'docs', fqdn: 'docs.relay.example.com', type: 'managed', spaMode: false, autheliaProtected: true, allowedUsers: ['alice'], dnsVerified: true, certIssued: true, rootPath: '/srv/sites/x', createdAt: NOW, totalSize: 2048 },
    { id: '5d0c2b9a-1f3e-4c6d-8e7f-9a0b1c2d3e4f', name: 'shop', fqdn: 'shop.example.org', type: 'custom', spaMode: true, autheliaProtected: false, allowedUsers: [], dnsVerified: false, certIssued: false, rootPath: '/srv/sites/y', createdAt: NOW, totalSize: 0 },
  ] },
  '/api/sites/0b6f1f9e-8c1e-4b5e-9d1a-2f0c5d7e8a11/files?path=.': { path: '.', files: [
    { name: 'assets', type: 'directory', size: 0, modifiedAt: NOW, relativePath: 'assets' },
    { name: 'index.html', type: 'file', size: 2048, modifiedAt: NOW, relativePath: 'index.html' },
  ] },
  '/api/users': { users: [{ username: 'admin', displayname: 'admin', email: 'admin@relay.example.com', groups: ['admins'] }, { username: 'alice', displayname: 'Alice', email: 'alice@example.com', groups: [] }] },
  '/api/invitations': { invitations: [{ id: 'a1', username: 'bob', email: 'bob@example.com', displayname: 'bob', groups: [], createdAt: NOW, expiresAt: NOW, used: false, acceptedAt: null, status: 'pending' }] },
  '/api/certs': {
    certs: [{ type: 'letsencrypt', domain: 'panel.relay.example.com', expiresAt: NOW, daysUntilExpiry: 80, expiringSoon: false, name: 'panel.relay.example.com', domains: ['panel.relay.example.com'], daysLeft: 80 }],
    adminCertificate: { authMode: 'p12', serial: '01', expiresAt: NOW, rotation: { previousSerial: '00', newSerial: '01', startedAt: NOW, graceEndsAt: NOW, state: 'pending', completedAt: null, completedBy: null }, bundlePending: false },
  },
  '/api/certs/auto-renew-status': { active: true, nextRun: NOW, lastRun: null },
  '/api/certs/limits': {
    server: 'https://acme-v02.api.letsencrypt.org/directory', source: 'letsencrypt',
    limits: { newPerRegisteredDomain: 50, duplicatePerNameSet: 5, failedValidationsPerHostname: 5, ordersPerAccount: 300 },
    counts: [
      { limit: 'newPerRegisteredDomain', key: 'example.com', count: 40, max: 50, windowSeconds: 604800, nextFreeAt: null },
      { limit: 'failedValidationsPerHostname', key: 'app.example.com', count: 5, max: 5, windowSeconds: 3600, nextFreeAt: NOW },
      { limit: 'ordersPerAccount', key: 'https://acme-v02.api.letsencrypt.org/directory', count: 46, max: 300, windowSeconds: 10800, nextFreeAt: null },
    ],
  },
  '/api/certs/agent': { agents: [{ label: 'laptop-1', serial: '1001', capabilities: ['tunnels:read'], allowedSites: ['docs'], enrollmentMethod: 'hardware-bound', createdAt: NOW, expiresAt: NOW, revoked: false, revokedAt: null }] },
  '/api/plugins': { plugins: [BACKUP_PLUGIN] },
  '/api/plugins/backup': BACKUP_PLUGIN,
  '/api/plugins/ghost': { ...BACKUP_PLUGIN, name: 'ghost', displayName: 'Ghost', packageName: '@acme/ghost' },
  '/api/settings/2fa': { enabled: false, setupComplete: false },
};

async function stubGets(page: Page) {
  await page.route((url) => url.pathname.startsWith('/api/'), (route) => {
    const url = new URL(route.request().url());
    const body = STUB_GETS[url.pathname + url.search] ?? STUB_GETS[url.pathname];
    if (route.request().method() !== 'GET' || body === undefined) return route.fallback();
    return route.fulfill({ status: 200, json: body });
  });
}

s('onboarding: a failing DNS check shows what the base domain resolves to, from the 400\'s details', timed(30_000, async () => {
  const { page } = browser;
  await stubJson(page, '**/api/onboarding/status', () => ({ status: 200, json: { status: 'DOMAIN_SET', domain: 'relay.example.com', email: 'ops@example.com' } }));
  const probe = (name: string, addresses: string[]) => ({ name, addresses, ok: false });
  const message = 'relay.example.com resolves to 198.51.100.4, not to this host (203.0.113.10). Point an A record for relay.example.com to 203.0.113.10 and check again.';
  await stubJson(page, '**/api/onboarding/verify-dns', () => ({
    status: 400,
    json: { error: 'DNS verification failed', details: { status: 'DOMAIN_SET', domain: 'relay.example.com', ip: '203.0.113.10', base: probe('relay.example.com', ['198.51.100.4']), wildcard: probe('relay-probe-0a1b2c3d4e.relay.example.com', []), message } },
  }));
  await page.goto(panel.url);
  await page.getByRole('button', { name: 'Check DNS' }).click();
  await page.getByText(message).waitFor();
  assert.ok(await page.getByRole('cell', { name: '198.51.100.4' }).isVisible());
  assert.ok(await page.getByText('DNS results (expected 203.0.113.10)').isVisible());
  assert.not.ok(await page.getByRole('button', { name: 'Continue to provisioning' }).isVisible());
}));

s('users: edit sends the changed fields and no empty password', timed(30_000, async () => {
  const { page } = browser;
  await stubGets(page);
  const puts: unknown[] = [];
  await page.route('**/api/users/alice', (route) => {
    puts.push(route.request().postDataJSON());
    return route.fulfill({ status: 200, json: { ok: true, user: { username: 'alice', displayname: 'Alice Liddell', email: 'alice@example.com', groups: ['admins'] } } });
  });
  await page.goto(`${panel.url}/users`);
  await page.getByRole('button', { name: 'Edit alice' }).click();
  await page.getByRole('heading', { name: 'Edit alice' }).waitFor();
  await page.getByLabel('Display name', { exact: true }).fill('Alice Liddell');
  await page.getByLabel('Groups', { exact: true }).fill('admins');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { name: 'New user' }).waitFor();
  assert.equal(puts, [{ displayname: 'Alice Liddell', email: 'alice@example.com', groups: ['admins'] }]);
}));

s('users: field errors from details.issues land under their inputs', timed(30_000, async () => {
  const { page } = browser;
  await stubGets(page);
  await page.route('**/api/users', (route) => route.request().method() === 'POST'
    ? route.fulfill({ status: 400, json: { error: 'Validation failed', details: { issues: [{ path: 'username', message: 'Username must match ^[a-z0-9_-]+$' }, { path: 'password', message: 'Too small: expected string to have >=8 characters' }] } } })
    : route.fallback());
  await page.goto(`${panel.url}/users`);
  await page.getByLabel('Username', { exact: true }).fill('Bad Name');
  await page.getByLabel('Display name', { exact: true }).fill('Bad');
  await page.getByLabel('Email', { exact: true }).fill('bad@example.com');
  await page.getByLabel('Password', { exact: true }).fill('short');
  await page.getByRole('button', { name: 'Create user' }).click();
  const username = page.getByLabel('Username', { exact: true });
  await page.getByText('Username must match ^[a-z0-9_-]+$').waitFor();
  assert.is(await username.getAttribute('aria-invalid'), 'true');
  const describedBy = (await username.getAttribute('aria-describedby'))!.split(' ');
  const texts = await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).innerText()));
  assert.ok(texts.includes('Username must match ^[a-z0-9_-]+$'));
  assert.is(await page.getByLabel('Email', { exact: true }).getAttribute('aria-invalid'), null);
  assert.ok(await page.getByText('Validation failed: see the fields below').isVisible());
}));

s('2FA setup: the QR code and key come from Portlama\'s `uri` and `manualKey`; a 429 says how long to wait', timed(30_000, async () => {
  const { page } = browser;
  await stubGets(page);
  const manualKey = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  await page.route('**/api/settings/2fa/setup', (route) => route.fulfill({ status: 200, json: { ok: true, uri: `otpauth://totp/Relay%20Panel:admin%40relay.example.com?secret=${manualKey}&issuer=Relay%20Panel`, manualKey } }));
  await page.route('**/api/settings/2fa/confirm', (route) => route.fulfill({ status: 429, json: { error: 'Too many attempts. Try again later.', details: { retryAfter: 42 } } }));
  await page.goto(`${panel.url}/settings`);
  await page.getByRole('button', { name: 'Set up' }).click();
  assert.is(await page.getByLabel('Secret key').innerText(), manualKey);
  assert.ok(await page.getByRole('img', { name: 'Admin TOTP QR code' }).locator('svg').isVisible(), 'the QR code of `uri`');
  await page.getByLabel('Confirm: 6-digit code').fill('123456');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByText('Too many attempts. Try again later. Wait 42 s.').waitFor();
}));

s('agents: the P12 password is shown once with a warning; revoke asks first', timed(30_000, async () => {
  const { page } = browser;
  await stubGets(page);
  const revoked: string[] = [];
  const issued: unknown[] = [];
  await page.route('**/api/certs/agent', (route) => route.request().method() === 'POST'
    ? (issued.push(route.request().postDataJSON()), route.fulfill({ status: 201, json: { ok: true, label: 'nas', serial: '1002', expiresAt: NOW, p12Password: 'k3Vq9ZpL2mX7rT4w' } }))
    : route.fallback());
  await page.route('**/api/certs/agent/laptop-1', (route) => { revoked.push(route.request().method()); return route.fulfill({ status: 200, json: { ok: true } }); });
  await page.goto(`${panel.url}/certs`);
  await page.getByText('A rotation is pending').waitFor();
  // the certificate limits: each count against its limit, a reached one warned of, with when it frees
  const limits = page.locator('section', { has: page.getByRole('heading', { name: 'Certificate limits' }) });
  await limits.getByText('40 / 50').waitFor();
  assert.ok(await limits.getByText("Let's Encrypt's published limits").isVisible());
  assert.ok(await limits.getByRole('alert').filter({ hasText: 'A limit is reached' }).isVisible());
  assert.ok(await limits.getByRole('row', { name: /app\.example\.com 5 \/ 5/ }).isVisible());
  await page.getByLabel('Agent label').fill('nas');
  const issueForm = page.locator('form', { has: page.getByRole('heading', { name: 'Issue an agent certificate' }) });
  await issueForm.getByLabel('sites:read').check();
  await issueForm.getByLabel('Other capabilities (ticket scopes, plugins)').pressSequentially('backup:run, media:read');
  await issueForm.getByLabel('Allowed sites').fill('docs, blog');
  await page.getByRole('button', { name: 'Issue certificate' }).click();
  assert.is(await page.getByLabel('P12 password').innerText(), 'k3Vq9ZpL2mX7rT4w');
  assert.equal(issued, [{ label: 'nas', capabilities: ['tunnels:read', 'sites:read', 'backup:run', 'media:read'], allowedSites: ['docs', 'blog'] }]);
  assert.ok(await page.getByText('shown only once').first().isVisible());
  await page.getByRole('button', { name: 'Revoke laptop-1' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  assert.equal(revoked, []);
  await page.getByRole('button', { name: 'Revoke laptop-1' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, continue' }).click();
  await page.waitForFunction(() => !document.querySelector('dialog[open]'));
  await page.waitForFunction(() => !document.querySelector('button[aria-busy=true]'));
  assert.equal(revoked, ['DELETE']);
  await expectAccessible(page, 'certs-populated');
}));

s('sites: a drag-and-drop upload posts multipart `file` parts to the open folder and shows the size warning', timed(30_000, async () => {
  const { page } = browser;
  await stubGets(page);
  const uploads: { url: string; body: string }[] = [];
  await page.route('**/api/sites/*/files?path=*', (route) => {
    if (route.request().method() !== 'POST') return route.fallback();
    uploads.push({ url: route.request().url(), body: route.request().postData() ?? '' });
    return route.fulfill({ status: 200, json: { ok: true, files: ['notes.txt', 'logo.svg'], warning: 'Site size exceeds the limit of 50.0 MB', totalSize: 52_500_000 } });
  });
  await page.goto(`${panel.url}/sites`);
  await page.getByRole('button', { name: 'Files of docs' }).click();
  await page.getByRole('rowheader', { name: 'index.html' }).waitFor();
  const dataTransfer = await page.evaluateHandle(() => {
    const transfer = new DataTransfer();
    transfer.items.add(new File(['hello notes'], 'notes.txt', { type: 'text/plain' }));
    transfer.items.add(new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' }));
    return transfer;
  });
  await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer });
  await page.getByText('Site size exceeds the limit of 50.0 MB').waitFor();
  assert.is(uploads.length, 1);
  assert.match(uploads[0]!.url, /\/api\/sites\/0b6f1f9e-8c1e-4b5e-9d1a-2f0c5d7e8a11\/files\?path=\.$/);
  assert.match(uploads[0]!.body, /name="file"; filename="notes.txt"[\s\S]*hello notes[\s\S]*name="file"; filename="logo.svg"/);
}));

s('sites: a custom site says what to do; a wrong DNS answer shows what the name resolves to', timed(30_000, async () => {
  const { page } = browser;
  await stubGets(page);
  const created: unknown[] = [];
  await page.route('**/api/sites', (route) => {
    if (route.request().method() !== 'POST') return route.fallback();
    created.push(route.request().postDataJSON());
    return route.fulfill({ status: 201, json: { ok: true, site: {}, message: 'Add an A record for shop2.example.org pointing to 203.0.113.10, then verify DNS.' } });
  });
  await page.route('**/api/sites/*/verify-dns', (route) => route.fulfill({ status: 200, json: { ok: false, fqdn: 'shop.example.org', expectedIp: '203.0.113.10', resolvedIps: ['198.51.100.7'], message: 'DNS does not point to this server yet' } }));
  await page.goto(`${panel.url}/sites`);
  await page.getByLabel('Name', { exact: true }).fill('shop2');
  await page.getByLabel('Type').selectOption('custom');
  await page.getByLabel('Custom domain').fill('shop2.example.org');
  await page.getByRole('button', { name: 'Create site' }).click();
  await page.getByText('Add an A record for shop2.example.org').waitFor();
  assert.equal(created, [{ name: 'shop2', type: 'custom', customDomain: 'shop2.example.org', spaMode: false, autheliaProtected: false }]);
  await page.getByRole('button', { name: 'Verify DNS of shop' }).click();
  await page.getByText('DNS does not point to this server yet (expected 203.0.113.10; shop.example.org resolves to 198.51.100.7)').waitFor();
}));

s('sites, file browser and plugins pass axe when they have content', timed(30_000, async () => {
  const { page } = browser;
  await stubGets(page);
  await page.goto(`${panel.url}/sites`);
  await page.getByRole('button', { name: 'Files of docs' }).click();
  await page.getByRole('rowheader', { name: 'index.html' }).waitFor();
  assert.ok(await page.getByRole('button', { name: 'Verify DNS of shop' }).isVisible());
  assert.is(await page.getByRole('button', { name: 'Verify DNS of docs' }).count(), 0);
  await expectAccessible(page, 'sites-populated');
  await page.getByRole('button', { name: 'Settings of docs' }).click();
  assert.is(await page.getByLabel('Allowed users').inputValue(), 'alice');
  await expectAccessible(page, 'sites-settings');
  await page.goto(`${panel.url}/plugins`);
  await page.getByRole('link', { name: 'Backups' }).waitFor();
  await expectAccessible(page, 'plugins-populated');
}));

s('plugins: an enabled plugin\'s panel.js is loaded into its own page and mounted', timed(30_000, async () => {
  const { page } = browser;
  await stubGets(page);
  await page.route((url) => url.pathname === '/api/backup/panel.js', (route) => route.fulfill({
    status: 200, contentType: 'text/javascript',
    body: 'export function mount(el, { api }) { el.innerHTML = "<p>Backups plugin says hello</p>"; window.__pluginApi = typeof api; return () => { window.__pluginUnmounted = true; }; }',
  }));
  await page.goto(`${panel.url}/plugins`);
  await page.getByRole('link', { name: 'Backups' }).click();
  await page.getByRole('heading', { level: 1, name: 'Plugin: backup' }).waitFor();
  await page.getByText('Backups plugin says hello').waitFor();
  assert.is(await page.evaluate(() => (window as unknown as { __pluginApi: string }).__pluginApi), 'function');
  await page.getByRole('link', { name: 'Dashboard' }).click();
  await page.waitForFunction(() => (window as unknown as { __pluginUnmounted?: boolean }).__pluginUnmounted === true);
  // An enabled plugin whose bundle is missing: a message, not a broken page.
  await page.goto(`${panel.url}/plugins/ghost`);
  await page.getByText('The panel of plugin ghost could not be loaded').waitFor();
}));

s('a page that cannot render its data shows a message, not a blank panel or a stack', timed(30_000, async () => {
  const { page } = browser;
  await stubGets(page);
  await page.route('**/api/users', (route) => route.fulfill({ status: 200, json: { users: 'not a list' } }));
  await page.goto(`${panel.url}/users`);
  await page.getByText('This page could not be shown').waitFor();
  assert.not.match(await page.locator('body').innerText(), /TypeError|at .*:\d+:\d+/);
  // The rest of the panel still works.
  await page.getByRole('link', { name: 'Plugins' }).click();
  await page.getByRole('link', { name: 'Backups' }).waitFor();
}));


s.run();
