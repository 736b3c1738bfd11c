// The admin client in a real browser against the bundle on a fresh sandbox: onboarding to
// COMPLETED, a tunnel, the tickets page (every page under axe-core: a11y-walk.test.ts).
import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import type { Route } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closeServer, listenOnLoopback, portOf, unusedPort } from '../helpers/loopback-listener.ts';
import { timed } from '../helpers/timeout.ts';
import { openBrowser, screenshot, startPanel, type Browser, type PanelServer, expectAccessible as expectAccessibleOn, closeBoth } from './harness.ts';

const s = suite('browser: the panel on the sandbox (chromium)');
let panel: PanelServer;
let browser: Browser;

let trafficPort = 0;

s.before(async () => {
  // the sandbox counts traffic from nginx's log lines on this port; the test sends them as nginx would
  trafficPort = await unusedPort();
  panel = await startPanel({ config: { system: { driver: 'sandbox', nginx: { trafficPort } } } });
  browser = await openBrowser();
});

s.after(() => closeBoth(browser, panel));

s.after.each(() => {
  assert.equal(browser.pageErrors, [], 'no uncaught error in the page');
});

const expectAccessible = (name: string) => expectAccessibleOn(browser.page, name);

/** One request's line, as nginx's traffic log sends it (syslog over loopback UDP). */
function sendTrafficLine(port: number, vhost: string, status = 200, seconds = '0.004'): Promise<void> {
  const socket = createSocket('udp4');
  const text = `<190>Nov 27 05:28:33 relay: {"v":"${vhost}","s":${status},"in":120,"out":2048,"t":${seconds},"u":"${status}"}`;
  return new Promise((resolve) => socket.send(text, port, '127.0.0.1', () => {
    socket.close();
    resolve();
  }));
}

/** How many points the sparkline in `row` draws. */
async function sparklinePoints(row: ReturnType<Browser['page']['locator']>): Promise<number> {
  const points = await row.locator('svg.sparkline polyline').getAttribute('points');
  return (points ?? '').trim().split(/\s+/).filter(Boolean).length;
}

s('onboarding: field errors from details.issues, DNS results, live provisioning, credentials shown once', timed(90_000, async () => {
  const { page } = browser;
  await page.goto(panel.url);
  await page.getByRole('heading', { name: 'Set up this relay' }).waitFor();
  // the sandbox offers the name browsers resolve to this machine themselves
  assert.is(await page.getByLabel('Domain').inputValue(), 'relay.localhost');
  await expectAccessible('onboarding-domain');

  await page.getByLabel('Domain').fill('https://relay.example.com');
  await page.getByLabel('Email').fill('ops@example.com');
  await page.getByRole('button', { name: 'Save' }).click();
  // The server's own message for this field, next to it.
  const fieldError = page.locator('.field-error');
  await fieldError.first().waitFor();
  assert.ok((await fieldError.count()) >= 1);
  assert.equal(await page.getByLabel('Domain').getAttribute('aria-invalid'), 'true');

  await page.getByLabel('Domain').fill('relay.localhost');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('button', { name: 'Check DNS' }).click();
  const table = page.locator('table', { hasText: 'Wildcard' });
  await table.waitFor();
  assert.match(await table.innerText(), /relay\.localhost[\s\S]*127\.0\.0\.1[\s\S]*OK/);
  await expectAccessible('onboarding-dns');

  await page.getByRole('button', { name: 'Continue to provisioning' }).click();
  await page.getByRole('button', { name: 'Start provisioning' }).click();
  await page.getByRole('heading', { name: 'Provisioning complete' }).waitFor({ timeout: 60_000 });
  const password = await page.getByLabel('Password', { exact: true }).innerText();
  const username = await page.getByLabel('Username', { exact: true }).innerText();
  assert.is(username, 'admin');
  assert.match(password, /^\S{20}$/);
  assert.ok(await page.getByText('shown only once').isVisible());
  // the links open this sandbox server: http on its own port, not https on a name nobody answers
  const port = new URL(panel.url).port;
  assert.is(await page.getByRole('link', { name: `http://panel.relay.localhost:${port}` }).getAttribute('href'), `http://panel.relay.localhost:${port}`);
  await expectAccessible('onboarding-complete');

  const status = await panel.call('GET', '/api/onboarding/status');
  assert.is(status.body.status, 'COMPLETED');
  await page.getByRole('button', { name: /open the panel/ }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}));

// In the sandbox the addresses the panel shows open in the browser. Chromium
// resolves *.localhost to loopback itself; the sandbox server answers the tunnel's and site's names.
s('sandbox: a tunnel\'s address opens the app behind it, a site\'s address its page', timed(40_000, async () => {
  const { page } = browser;
  const app = createServer((req, res) => res.end(`<!doctype html><title>app</title><h1>the app on the tunnel port: ${req.url}</h1>`));
  await new Promise<void>((ok) => app.listen(0, '127.0.0.1', ok));
  const tunnel = (await panel.call('POST', '/api/tunnels', { subdomain: 'linked', port: (app.address() as { port: number }).port })).body.tunnel;
  const site = (await panel.call('POST', '/api/sites', { name: 'pages', type: 'managed' })).body.site;
  try {
    await page.goto(`${panel.url}/tunnels`);
    await page.getByRole('link', { name: tunnel.fqdn }).click();
    await page.getByRole('heading', { name: 'the app on the tunnel port: /' }).waitFor();
    assert.is(page.url(), `http://${tunnel.fqdn}:${new URL(panel.url).port}/`);
    await page.goto(`${panel.url}/sites`);
    await page.getByRole('link', { name: site.fqdn }).click();
    // the site's placeholder index.html, from its folder
    await page.getByRole('heading', { name: 'pages' }).waitFor();
    await page.getByText('This site has no files yet').waitFor();
  } finally {
    await panel.call('DELETE', `/api/tunnels/${tunnel.id}`);
    await panel.call('DELETE', `/api/sites/${site.id}`);
    await new Promise((ok) => app.close(ok));
    await page.goto(panel.url);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  }
}));

s('tunnels: create one, see it listed, disable and enable it, and the client setup', timed(30_000, async () => {
  const { page } = browser;
  await page.getByRole('link', { name: 'Tunnels', exact: true }).click();
  await page.getByLabel('Subdomain').fill('grafana');
  await page.getByLabel('Local port').fill('3000');
  await page.getByLabel('Description').fill('dashboards');
  await page.getByRole('button', { name: 'Create tunnel' }).click();
  await page.getByRole('rowheader', { name: 'grafana.relay.localhost' }).waitFor();
  // A success says so, in a polite status region, and goes away by itself (checked at the end).
  const created = page.getByRole('status').getByText('Tunnel grafana.relay.localhost created.');
  await created.waitFor();
  const listed = await panel.call('GET', '/api/tunnels');
  assert.equal(listed.body.tunnels.map((t: { subdomain: string }) => t.subdomain), ['grafana']);
  await screenshot(page, 'tunnels-list');

  // The same port again: the server's message is shown.
  await page.getByLabel('Subdomain').fill('other');
  await page.getByLabel('Local port').fill('3000');
  await page.getByRole('button', { name: 'Create tunnel' }).click();
  const refused = page.getByText('Port 3000 is already in use by another tunnel');
  await refused.waitFor();

  await page.getByRole('button', { name: 'Disable grafana' }).click();
  await page.getByRole('button', { name: 'Enable grafana' }).waitFor();
  // The refusal above the form is not left to read as the outcome of the disable.
  assert.is(await refused.count(), 0, 'the earlier refusal is gone after a later action');
  await page.getByRole('status').getByText('Tunnel grafana.relay.localhost disabled.').waitFor();
  assert.is((await panel.call('GET', '/api/tunnels')).body.tunnels[0].enabled, false);
  await page.getByRole('button', { name: 'Enable grafana' }).click();
  await page.getByRole('button', { name: 'Disable grafana' }).waitFor();
  assert.is((await panel.call('GET', '/api/tunnels')).body.tunnels[0].enabled, true);

  // A refused action is said in an alert toast, which goes when the next action starts.
  const refuse = (route: Route) => (route.request().method() === 'PATCH' ? route.fulfill({ status: 409, json: { error: 'Refused for the test' } }) : route.fallback());
  await page.route('**/api/tunnels/*', refuse);
  await page.getByRole('button', { name: 'Disable grafana' }).click();
  const failure = page.getByRole('alert').getByText('Refused for the test');
  await failure.waitFor();
  await page.unroute('**/api/tunnels/*', refuse);
  await page.getByRole('button', { name: 'Disable grafana' }).click();
  await page.getByRole('button', { name: 'Enable grafana' }).waitFor();
  assert.is(await failure.count(), 0, 'the failure is gone once a later action started');
  await page.getByRole('button', { name: 'Enable grafana' }).click();
  await page.getByRole('button', { name: 'Disable grafana' }).waitFor();

  await page.getByRole('button', { name: 'Show client setup' }).click();
  await page.getByLabel('chisel arguments').waitFor();
  assert.match(await page.getByLabel('chisel arguments').innerText(), /R:127\.0\.0\.1:3000:127\.0\.0\.1:3000/);
  // the server's host key fingerprint, and a client command that pins it
  const { fingerprint, clients } = (await panel.call('GET', '/api/tunnels/agent-config')).body;
  assert.is(await page.getByLabel('Server fingerprint').innerText(), fingerprint);
  // one client per tunnel, so disabling one tunnel never takes another down
  assert.equal(clients.map((c: { subdomain: string }) => c.subdomain), ['grafana']);
  assert.is(await page.getByLabel('Client command for grafana').innerText(), ['chisel', 'client', '--fingerprint', fingerprint, ...clients[0].chiselArgs.slice(1)].join(' '));
  await expectAccessible('tunnels');
  // about 4 s after it came, nobody having touched it
  await created.waitFor({ state: 'detached', timeout: 6_000 });
}));

s('tunnels: each client\'s state on the tunnels page, and the tunnels down on the dashboard', timed(40_000, async () => {
  const { page } = browser;
  // a listener on a tunnel's port on 127.0.0.1 plays its connected client (the sandbox reads the kernel's tables as on a box)
  const session = await listenOnLoopback();
  const idlePort = await unusedPort();
  const ids: string[] = [];
  const fqdns: string[] = [];
  try {
    for (const [subdomain, port] of [['live', portOf(session)], ['idle', idlePort]] as const) {
      const made = await panel.call('POST', '/api/tunnels', { subdomain, port });
      assert.is(made.status, 201, JSON.stringify(made.body));
      ids.push(made.body.tunnel.id);
      fqdns.push(made.body.tunnel.fqdn);
    }
    await sendTrafficLine(trafficPort, `app:${fqdns[0]}`);
    // the dashboard sums up: the tunnels down are a count linking to their filtered list, not listed there
    await page.getByRole('link', { name: 'Dashboard' }).click();
    const card = page.locator('section[aria-labelledby="tunnels-title"]');
    await page.waitForFunction(() => !document.querySelector('section[aria-labelledby="tunnels-title"] [role=status]'));
    const status = (await panel.call('GET', '/api/tunnels/status')).body.tunnels as { enabled: boolean; connected: boolean }[];
    const down = status.filter((t) => t.enabled && !t.connected).length;
    assert.ok(down >= 1, 'idle has no client');
    const downLink = card.getByRole('link', { name: `${down} ${down === 1 ? 'tunnel' : 'tunnels'} down`, exact: true });
    await downLink.click();
    await page.waitForURL(/\/tunnels\?state=down$/);
    await page.locator('tr', { hasText: 'idle.' }).getByText('offline', { exact: true }).waitFor();
    await page.locator('tr', { hasText: 'live.' }).waitFor({ state: 'detached' });
    assert.is(await page.getByLabel('State').inputValue(), 'down');
    await page.getByRole('link', { name: 'Tunnels', exact: true }).click();
    await page.waitForURL(/\/tunnels$/);
    await page.locator('tr', { hasText: 'live.' }).getByText('connected', { exact: true }).waitFor();
    await page.locator('tr', { hasText: 'idle.' }).getByText('offline', { exact: true }).waitFor();
    await page.locator('tr', { hasText: 'live.' }).getByText(/^1 requests, /).waitFor();
    await page.locator('tr', { hasText: 'idle.' }).getByText('no requests').waitFor();
    assert.is(await sparklinePoints(page.locator('tr', { hasText: 'live.' })), 60, 'one point per minute of the hour');
    assert.is(await page.locator('tr', { hasText: 'idle.' }).locator('svg.sparkline').count(), 0, 'no line without requests');
    await screenshot(page, 'tunnels-status');
    // its client connects: the page is told (WS /api/tunnels/status/live), no reload
    const late = await listenOnLoopback(idlePort);
    try {
      await page.locator('tr', { hasText: 'idle.' }).getByText('connected', { exact: true }).waitFor({ timeout: 15_000 });
    } finally {
      await closeServer(late);
    }
  } finally {
    for (const id of ids) await panel.call('DELETE', `/api/tunnels/${id}`);
    await closeServer(session);
    // the next test starts on a freshly loaded tunnels page
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('link', { name: 'Tunnels', exact: true }).click();
  }
}));

s('sites: each site\'s last hour with its sparkline, told live when traffic comes', timed(40_000, async () => {
  const { page } = browser;
  const made = await panel.call('POST', '/api/sites', { name: 'docs', type: 'managed' });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const site = made.body.site;
  try {
    await page.getByRole('link', { name: 'Sites' }).click();
    const row = page.locator('tr', { hasText: site.fqdn });
    await row.getByText('no requests').waitFor();
    // marks this page load: a reload would lose it
    await page.evaluate(() => ((window as unknown as { sameLoad: boolean }).sameLoad = true));
    await sendTrafficLine(trafficPort, `site:${site.fqdn}`);
    await sendTrafficLine(trafficPort, `site:${site.fqdn}`);
    // WS /api/sites/status/live tells the page within a check (5 s); the GET fallback would take 30 s
    await row.getByText(/^2 requests, /).waitFor({ timeout: 15_000 });
    assert.ok(await page.evaluate(() => (window as unknown as { sameLoad?: boolean }).sameLoad), 'no reload');
    assert.is(await sparklinePoints(row), 60);
    const label = await row.getByRole('img').getAttribute('aria-label');
    assert.match(label ?? '', /^Requests per minute over the last hour: at most [12], [0-2] this minute$/, String(label));
    await screenshot(page, 'sites-traffic');
  } finally {
    await panel.call('DELETE', `/api/sites/${site.id}`);
    // the next test starts on the tunnels page
    await page.getByRole('link', { name: 'Tunnels', exact: true }).click();
  }
}));

s('tunnels: edit a tunnel\'s port and description; its own page charts its last hour per minute', timed(40_000, async () => {
  const { page } = browser;
  const other = await panel.call('POST', '/api/tunnels', { subdomain: 'taken', port: 3200 });
  assert.is(other.status, 201, JSON.stringify(other.body));
  try {
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('link', { name: 'Tunnels', exact: true }).click();
    const edit = page.getByRole('button', { name: 'Edit grafana' });
    await edit.click();
    // the panel opens in view with focus on its heading
    await page.waitForFunction(() => document.activeElement?.textContent === 'Edit grafana');
    const form = page.locator('form', { has: page.getByRole('heading', { name: 'Edit grafana' }) });
    // another tunnel's port: the server's words under the field, nothing stored
    await form.getByLabel('Local port').fill('3200');
    await form.getByRole('button', { name: 'Save tunnel' }).click();
    await form.locator('.field-error', { hasText: 'Port 3200 is already in use by another tunnel' }).waitFor();
    const grafana = () => panel.call('GET', '/api/tunnels').then((r) => r.body.tunnels.find((t: { subdomain: string }) => t.subdomain === 'grafana'));
    assert.equal([(await grafana()).port, (await grafana()).description], [3000, 'dashboards']);
    await form.getByLabel('Local port').fill('3001');
    await form.getByLabel('Description').fill('metrics');
    await form.getByRole('button', { name: 'Save tunnel' }).click();
    await form.getByText(/^Saved: port 3001/).waitFor();
    const saved = await grafana();
    assert.equal([saved.port, saved.description], [3001, 'metrics']);
    await page.locator('tr', { hasText: 'grafana.' }).getByRole('cell', { name: 'metrics' }).waitFor();
    await form.getByRole('button', { name: 'Close editing of grafana' }).click();
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Edit grafana');

    // two quick answers and a 502 slow one this minute, then the tunnel's own page from its name
    await sendTrafficLine(trafficPort, `app:${saved.fqdn}`);
    await sendTrafficLine(trafficPort, `app:${saved.fqdn}`);
    await sendTrafficLine(trafficPort, `app:${saved.fqdn}`, 502, '0.300');
    await page.locator('tr', { hasText: 'grafana.' }).getByText(/^3 requests, /).waitFor({ timeout: 15_000 });
    await page.getByRole('link', { name: 'grafana', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Tunnel grafana' }).waitFor();
    assert.is(new URL(page.url()).pathname, `/tunnels/${saved.id}`);
    await page.locator('.facts div', { hasText: 'Local port' }).getByText('3001', { exact: true }).waitFor();
    const traffic = page.locator('section', { has: page.getByRole('heading', { name: 'Traffic of the last hour' }) });
    // the chart's own totals (a minute may turn between the lines, so no single minute is asserted)
    const requestsChart = (total: number) => traffic.getByRole('img', { name: new RegExp(`^Requests and errors per minute over the last hour: ${total} requests, 1 errors`) });
    await requestsChart(3).waitFor();
    await traffic.getByText('p95 ≤ 500 ms', { exact: true }).waitFor();
    const points = await traffic.locator('polyline.requests').getAttribute('points');
    assert.is((points ?? '').trim().split(/\s+/).length, 60, 'one point per minute of the hour');
    assert.ok(await traffic.locator('polyline.p95.dot').count() >= 1, 'latency only where a minute had requests: a dash');
    await traffic.getByText('The minutes with requests, as a table').click();
    const rows = await traffic.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.equal([rows.reduce((n, r) => n + Number(r[1]), 0), rows.reduce((n, r) => n + Number(r[2]), 0)], [3, 1], JSON.stringify(rows));
    assert.equal(rows.at(-1)!.slice(3), [rows.length === 1 ? '≤ 5 ms' : rows.at(-1)![3], '≤ 500 ms'], 'the 502 took 300 ms');
    // told live: one more request moves the chart without a reload
    await page.evaluate(() => ((window as unknown as { sameLoad: boolean }).sameLoad = true));
    await sendTrafficLine(trafficPort, `app:${saved.fqdn}`);
    await requestsChart(4).waitFor({ timeout: 20_000 });
    assert.ok(await page.evaluate(() => (window as unknown as { sameLoad?: boolean }).sameLoad), 'no reload');
    await expectAccessible('tunnel-page');
  } finally {
    await panel.call('DELETE', `/api/tunnels/${other.body.tunnel.id}`);
    // the next test starts on the tunnels page
    await page.getByRole('link', { name: 'Tunnels', exact: true }).click();
  }
}));

s('tunnels: delete asks first', timed(30_000, async () => {
  const { page } = browser;
  await page.getByRole('button', { name: 'Delete grafana' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  assert.is((await panel.call('GET', '/api/tunnels')).body.tunnels.length, 1);
  await page.getByRole('button', { name: 'Delete grafana' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, continue' }).click();
  await page.getByText('No tunnels yet.').waitFor();
  assert.is((await panel.call('GET', '/api/tunnels')).body.tunnels.length, 0);
}));

s('keyboard: skip link, navigation, a form submitted with Enter, Escape cancels a confirmation', timed(30_000, async () => {
  const { page } = browser;
  await page.goto(panel.url);
  await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
  await page.keyboard.press('Tab');
  assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  await page.keyboard.press('Tab');
  assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Dashboard');
  await page.keyboard.press('Tab');
  assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Tunnels');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Tunnels' }).waitFor();
  await page.waitForFunction(() => document.activeElement?.id === 'main');
  await page.keyboard.press('Tab');
  assert.is(await page.evaluate(() => document.activeElement?.closest('.field')?.querySelector('label')?.textContent), 'Subdomain');
  await page.keyboard.type('kbd');
  await page.keyboard.press('Tab');
  await page.keyboard.type('4000');
  await page.keyboard.press('Enter');
  await page.getByRole('rowheader', { name: 'kbd.relay.localhost' }).waitFor();

  await page.getByRole('button', { name: 'Delete kbd' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('dialog').waitFor();
  assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Cancel');
  await page.keyboard.press('Escape');
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  assert.is((await panel.call('GET', '/api/tunnels')).body.tunnels.length, 1);
  await page.getByRole('button', { name: 'Delete kbd' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('dialog').waitFor();
  await page.keyboard.press('Shift+Tab');
  assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Yes, continue');
  await page.keyboard.press('Enter');
  await page.getByText('No tunnels yet.').waitFor();
  assert.is((await panel.call('GET', '/api/tunnels')).body.tunnels.length, 0);
}));

s('tickets: a scope registered through the API shows up live', timed(60_000, async () => {
  const { page } = browser;
  await page.getByRole('link', { name: 'Tickets' }).click();
  await page.getByText('No scopes registered.').waitFor();
  const registered = await panel.call('POST', '/api/tickets/scopes', {
    name: 'backup', version: '1.0.0', description: 'Backups between agents',
    scopes: [{ name: 'backup:run', description: 'Run a backup', instanceScoped: true }],
    transport: { strategies: ['tunnel'], preferred: 'tunnel', port: 0, protocol: 'wss' },
  });
  assert.is(registered.status, 201);
  // No reload: the page refreshes itself.
  await page.getByRole('rowheader', { name: 'backup' }).waitFor({ timeout: 30_000 });
  assert.match(await page.getByRole('row', { name: /backup/ }).innerText(), /backup:run/);
  await expectAccessible('tickets');
}));

s('a request in flight shows the progress line', timed(30_000, async () => {
  const { page } = browser;
  let release!: () => void;
  let intercepted!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // other requests of the page may start and end the progress line first: wait for the held one
  const holding = new Promise<void>((resolve) => (intercepted = resolve));
  await page.route('**/api/tickets/scopes', async (route) => { intercepted(); await held; await route.continue(); });
  try {
    await page.goto(`${panel.url}/tickets`);
    await holding;
    await page.locator('.progress.active').waitFor();
    await page.waitForFunction(() => document.querySelector('.progress.active[role=status]')?.textContent === 'Working…', undefined, { timeout: 5000 });
    assert.is(await page.locator('.progress [role=status], .progress[role=status]').first().innerText(), 'Working…');
    release();
    await page.locator('.progress.active').waitFor({ state: 'detached' });
  } finally {
    release();
    await page.unrouteAll();
  }
}));

s('tunnels: 60 of them searched, filtered by state from the URL, sorted by port and paged; the client setup one page down', timed(90_000, async () => {
  const { page } = browser;
  // more than a page (50), kept few: each create issues a certificate with openssl on the sandbox.
  // Ports out of creation order, so a sort by port is told from the server's order; every third disabled.
  // eight requests at a time
  const inBatches = async <T,>(items: T[], run: (item: T) => Promise<void>) => {
    for (let i = 0; i < items.length; i += 8) await Promise.all(items.slice(i, i + 8).map(run));
  };
  const made: { id: string }[] = [];
  await inBatches(Array.from({ length: 60 }, (_, i) => i), async (i) => {
    const r = await panel.call('POST', '/api/tunnels', { subdomain: `list-${String(i + 1).padStart(3, '0')}`, port: 30000 + ((i * 37) % 60) });
    assert.is(r.status, 201, JSON.stringify(r.body));
    made[i] = r.body.tunnel;
  });
  await inBatches(made.filter((_, i) => i % 3 === 0), async (t) => {
    assert.is((await panel.call('PATCH', `/api/tunnels/${t.id}`, { enabled: false })).status, 200);
  });
  const created = (await panel.call('GET', '/api/tunnels')).body.tunnels as { subdomain: string; port: number }[];
  const serverOrder = created.map((t) => t.subdomain);
  const list = page.locator('section[aria-labelledby="tunnel-list"]');
  const rows = list.locator('tbody tr');
  const pager = list.getByRole('navigation', { name: 'Pages of tunnels' });
  /** The text of the shown rows' cells in `column` (1-based), the first `n` of them. */
  const columnTexts = (column: number) => rows.evaluateAll((trs, c) => trs.map((tr) => (tr.children[c - 1] as HTMLElement).innerText.trim()), column);
  const firstCells = async (column: number, n = 3) => (await columnTexts(column)).slice(0, n);

  await page.goto(`${panel.url}/tunnels`);
  await list.getByRole('rowheader', { name: `${serverOrder[0]}.relay.localhost` }).waitFor();
  assert.is(await rows.count(), 50, 'one page of 50 rendered');
  assert.match(await pager.innerText(), /1–50 of 60/);
  // the client setup card follows one page of rows, not all of them
  const setupTop = await page.getByRole('heading', { name: 'Tunnel client setup' }).evaluate((h) => h.getBoundingClientRect().top + window.scrollY);
  const rowsHeight = await rows.evaluateAll((trs) => trs.reduce((sum, tr) => sum + tr.getBoundingClientRect().height, 0));
  assert.ok(setupTop < rowsHeight + 1500, `client setup ${setupTop} px down, after ${rowsHeight} px of rows`);

  // page 2, and Back to page 1
  await pager.getByRole('button', { name: 'Next' }).click();
  await page.waitForURL(/\/tunnels\?page=2$/);
  await list.getByRole('rowheader', { name: `${serverOrder[50]}.relay.localhost` }).waitFor();
  assert.match(await pager.innerText(), /51–60 of 60/);
  assert.equal(await firstCells(1, 1), [`${serverOrder[50]} ${serverOrder[50]}.relay.localhost`]);
  await page.goBack();
  await list.getByRole('rowheader', { name: `${serverOrder[0]}.relay.localhost` }).waitFor();

  // the search narrows, in the URL too
  await list.getByLabel('Search tunnels').fill('LIST-05');
  await page.waitForURL(/\/tunnels\?q=LIST-05$/);
  await pager.getByText(/1–10 of 10 \(60 in all\)/).waitFor();
  assert.equal(await firstCells(1, 10), serverOrder.filter((n) => n.startsWith('list-05')).map((n) => `${n} ${n}.relay.localhost`));

  // a link opens a filtered list
  await page.goto(`${panel.url}/tunnels?state=disabled`);
  await pager.getByText(/1–20 of 20/).waitFor();
  assert.is(await list.getByLabel('State').inputValue(), 'disabled');
  const states = await columnTexts(4);
  assert.equal([states.length, new Set(states).size, states[0]], [20, 1, 'disabled']);

  // sorted by port: ascending, then descending
  await list.getByLabel('State').selectOption('');
  await page.waitForURL(/\/tunnels$/);
  await pager.getByText(/1–50 of 60$/).waitFor();
  assert.equal(await firstCells(2), created.slice(0, 3).map((t) => String(t.port)), 'the server\'s order');
  const portHead = list.getByRole('columnheader', { name: 'Port' });
  await portHead.getByRole('button').click();
  await page.waitForURL(/sort=port$/);
  assert.is(await portHead.getAttribute('aria-sort'), 'ascending');
  assert.equal(await firstCells(2), ['30000', '30001', '30002']);
  await portHead.getByRole('button').click();
  await page.waitForURL(/sort=-port$/);
  assert.is(await portHead.getAttribute('aria-sort'), 'descending');
  assert.equal(await firstCells(2), ['30059', '30058', '30057']);
}));

s.run();
