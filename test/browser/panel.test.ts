// The admin client in a real browser against the bundle on a fresh sandbox: onboarding to
// COMPLETED, a tunnel, the tickets page (every page under axe-core: a11y-walk.test.ts).
import { createSocket } from 'node:dgram';
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
function sendTrafficLine(port: number, vhost: string): Promise<void> {
  const socket = createSocket('udp4');
  const text = `<190>Nov 27 05:28:33 relay: {"v":"${vhost}","s":200,"in":120,"out":2048,"t":0.004,"u":"200"}`;
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
  await expectAccessible('onboarding-domain');

  await page.getByLabel('Domain').fill('https://relay.example.com');
  await page.getByLabel('Email').fill('ops@example.com');
  await page.getByRole('button', { name: 'Save' }).click();
  // The server's own message for this field, next to it.
  const fieldError = page.locator('.field-error');
  await fieldError.first().waitFor();
  assert.ok((await fieldError.count()) >= 1);
  assert.equal(await page.getByLabel('Domain').getAttribute('aria-invalid'), 'true');

  await page.getByLabel('Domain').fill('relay.example.com');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('button', { name: 'Check DNS' }).click();
  const table = page.locator('table', { hasText: 'Wildcard' });
  await table.waitFor();
  assert.match(await table.innerText(), /relay\.example\.com[\s\S]*127\.0\.0\.1[\s\S]*OK/);
  await expectAccessible('onboarding-dns');

  await page.getByRole('button', { name: 'Continue to provisioning' }).click();
  await page.getByRole('button', { name: 'Start provisioning' }).click();
  await page.getByRole('heading', { name: 'Provisioning complete' }).waitFor({ timeout: 60_000 });
  const password = await page.getByLabel('Password', { exact: true }).innerText();
  const username = await page.getByLabel('Username', { exact: true }).innerText();
  assert.is(username, 'admin');
  assert.match(password, /^\S{20}$/);
  assert.ok(await page.getByText('shown only once').isVisible());
  await expectAccessible('onboarding-complete');

  const status = await panel.call('GET', '/api/onboarding/status');
  assert.is(status.body.status, 'COMPLETED');
  await page.getByRole('button', { name: /open the panel/ }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}));

s('tunnels: create one, see it listed, disable and enable it, and the client setup', timed(30_000, async () => {
  const { page } = browser;
  await page.getByRole('link', { name: 'Tunnels' }).click();
  await page.getByLabel('Subdomain').fill('grafana');
  await page.getByLabel('Local port').fill('3000');
  await page.getByLabel('Description').fill('dashboards');
  await page.getByRole('button', { name: 'Create tunnel' }).click();
  await page.getByRole('rowheader', { name: 'grafana.relay.example.com' }).waitFor();
  const listed = await panel.call('GET', '/api/tunnels');
  assert.equal(listed.body.tunnels.map((t: { subdomain: string }) => t.subdomain), ['grafana']);
  await screenshot(page, 'tunnels-list');

  // The same port again: the server's message is shown.
  await page.getByLabel('Subdomain').fill('other');
  await page.getByLabel('Local port').fill('3000');
  await page.getByRole('button', { name: 'Create tunnel' }).click();
  await page.getByText('Port 3000 is already in use by another tunnel').waitFor();

  await page.getByRole('button', { name: 'Disable grafana' }).click();
  await page.getByRole('button', { name: 'Enable grafana' }).waitFor();
  assert.is((await panel.call('GET', '/api/tunnels')).body.tunnels[0].enabled, false);
  await page.getByRole('button', { name: 'Enable grafana' }).click();
  await page.getByRole('button', { name: 'Disable grafana' }).waitFor();
  assert.is((await panel.call('GET', '/api/tunnels')).body.tunnels[0].enabled, true);

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
    // the page loads both lists when it opens: open the dashboard first, then the tunnels page
    await page.getByRole('link', { name: 'Dashboard' }).click();
    const card = page.locator('section', { has: page.getByRole('heading', { name: 'Tunnels' }) });
    await card.getByText(/\d+ of \d+ tunnels down/).waitFor();
    await card.locator('li', { hasText: 'idle' }).getByText('offline').waitFor();
    assert.is(await card.locator('li', { hasText: 'live' }).count(), 0, 'a connected tunnel is not listed as down');
    await page.getByRole('link', { name: 'Tunnels' }).click();
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
    await page.getByRole('link', { name: 'Tunnels' }).click();
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
    await page.getByRole('link', { name: 'Tunnels' }).click();
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
  await page.getByRole('rowheader', { name: 'kbd.relay.example.com' }).waitFor();

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

s('tickets: a scope registered through the API shows up live', timed(30_000, async () => {
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
  await page.getByRole('rowheader', { name: 'backup' }).waitFor({ timeout: 12_000 });
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

s.run();
