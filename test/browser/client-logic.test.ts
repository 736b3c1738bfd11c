// Client behaviour the sandbox cannot produce on demand (a failed provisioning run) or whose API
// is on another branch (stats, services and their live logs): the browser plays those routes,
// with the shapes of the spec and the decisions, and the page is checked against them.
import type { Page, WebSocketRoute } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { timed } from '../helpers/timeout.ts';
import { openBrowser, screenshot, seriousViolations, startPanel, type Browser, type PanelServer } from './harness.ts';

const s = suite('browser: client logic with the browser playing the server (chromium)');
let panel: PanelServer;
let browser: Browser;

s.before(async () => {
  panel = await startPanel();
  browser = await openBrowser();
});

s.after(async () => {
  await browser?.close();
  await panel?.stop();
});

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

s('dashboard: CPU/memory chart grows every 2 s, disk and uptime, service actions, live logs', timed(30_000, async () => {
  const { page } = browser;
  let samples = 0;
  const actions: string[] = [];
  await stubJson(page, '**/api/onboarding/status', () => ({ status: 200, json: { status: 'COMPLETED', domain: 'relay.example.com', email: 'ops@example.com' } }));
  await stubJson(page, '**/api/system/stats', () => {
    samples++;
    return { status: 200, json: { cpu: { usage: 10 + samples, cores: 2 }, memory: { total: 8 * 2 ** 30, used: 2 * 2 ** 30, free: 6 * 2 ** 30 }, disk: { total: 100 * 2 ** 30, used: 40 * 2 ** 30, free: 60 * 2 ** 30 }, uptime: 93_780 } };
  });
  await stubJson(page, '**/api/services', () => ({ status: 200, json: { services: ['proxy', 'tunnel-server', 'auth-portal', 'panel'].map((name) => ({ name, status: 'active', uptime: '1d 2h 3m' })) } }));
  await page.route('**/api/services/*/*', (route) => {
    actions.push(new URL(route.request().url()).pathname);
    return route.fulfill({ status: 200, json: { ok: true } });
  });
  await page.routeWebSocket('**/api/services/proxy/logs', (ws) => {
    for (let i = 1; i <= 3; i++) ws.send(JSON.stringify({ timestamp: `2026-11-23T10:00:0${i}Z`, message: `nginx line ${i}` }));
  });

  await page.goto(panel.url);
  await page.getByText('40.0 GiB of 100.0 GiB (60.0 GiB free)').waitFor();
  await page.getByText('1d 2h 3m', { exact: true }).first().waitFor();
  assert.ok(await page.getByText('1d 2h 3m', { exact: true }).count() >= 5, 'system uptime and the four services');
  assert.ok(await page.getByText('2.0 GiB of 8.0 GiB').isVisible());
  await page.waitForFunction(() => (document.querySelector('polyline.cpu')?.getAttribute('points') ?? '').split(' ').length >= 2, undefined, { timeout: 6000 });

  // panel cannot be stopped: no such button.
  assert.is(await page.getByRole('button', { name: 'stop panel' }).count(), 0);
  await page.getByRole('button', { name: 'restart proxy' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, continue' }).click();
  await page.getByRole('button', { name: 'reload proxy' }).click();
  await page.waitForFunction(() => !document.querySelector('dialog[open]'));
  await page.getByRole('button', { name: 'Logs of proxy' }).click();
  await page.getByText('nginx line 3').waitFor();
  assert.match(await page.getByLabel('Log lines of proxy').innerText(), /2026-11-23T10:00:01Z nginx line 1\n.*nginx line 2\n.*nginx line 3/);
  assert.equal(actions, ['/api/services/proxy/restart', '/api/services/proxy/reload']);
  await expectAccessible(page, 'dashboard-live');
}));

async function expectAccessible(page: Page, name: string) {
  await screenshot(page, name);
  assert.equal(await seriousViolations(page), [], `axe on ${name}`);
}

s.run();
