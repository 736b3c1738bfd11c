// The panel's TCP and UDP tunnels against the real API on a fresh sandbox in development mode:
// created through the form (public port, client port, sources), listed with their public ports, a
// taken public port refused next to its field, the sources edited, disabled and enabled, each
// row's client state and traffic (sessions and bytes from the stream server's log lines), its own
// page charting them, deleted.
// One page session, the steps in order: each builds on the state the last left.
import { createSocket } from 'node:dgram';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { timed } from '../helpers/timeout.ts';
import { unusedPort } from '../helpers/loopback-listener.ts';
import { axeViolations, onboardedSession, screenshot, startPanel, type Browser, type PanelServer, expectAccessible as expectAccessibleOn } from './harness.ts';

const s = suite('browser: TCP and UDP tunnels created, refused, edited, toggled and deleted on their real API (chromium)');
let panel: PanelServer;
let browser: Browser;
let trafficPort = 0;

// below the kernel's ephemeral range (32768-60999), where no client socket of another lane takes them
const TCP_PORT = 20122;
const UDP_PORT = 20153;

interface StoredStream { id: string; protocol: 'tcp' | 'udp'; publicPort: number; port: number; allow: string[]; enabled: boolean }

onboardedSession(s, (p, b) => {
  panel = p;
  browser = b;
}, async () => {
  // the sandbox counts traffic from nginx's log lines on this port; the test sends a stream server's
  trafficPort = await unusedPort();
  return startPanel({ config: { system: { driver: 'sandbox', nginx: { trafficPort } } } });
});

const expectAccessible = (name: string) => expectAccessibleOn(browser.page, name);
const stored = async () => ((await panel.call('GET', '/api/tunnels/streams')).body.streams as StoredStream[])
  .map(({ protocol, publicPort, port, allow, enabled }) => ({ protocol, publicPort, port, allow, enabled }))
  .sort((a, b) => a.publicPort - b.publicPort);
const createForm = () => browser.page.locator('form[aria-labelledby="new-stream"]');
const list = () => browser.page.locator('section[aria-labelledby="stream-list"]');
const row = (name: string) => list().locator('tbody tr', { has: browser.page.getByRole('rowheader', { name, exact: true }) });
const toast = (text: string) => browser.page.getByRole('status').filter({ hasText: text });

/** The state cell's text is `text` before the next status poll (every 5 s): the action asked again itself. */
const stateSoon = (name: string, text: string) => row(name).locator('td').nth(5).filter({ hasText: new RegExp(`^${text}`) }).waitFor({ timeout: 2500 });

/** One session's line, as a stream server's log sends it (syslog over loopback UDP): its status, bytes in and out, seconds. */
function sendSession(name: string, bytesIn: number, bytesOut: number): Promise<void> {
  const socket = createSocket('udp4');
  const text = `<190>Nov 28 15:10:00 relay: {"v":"${name}","s":200,"in":${bytesIn},"out":${bytesOut},"t":1.250,"u":"127.0.0.1:60001"}`;
  return new Promise((resolve) => socket.send(text, trafficPort, '127.0.0.1', () => {
    socket.close();
    resolve();
  }));
}

async function create(protocol: 'TCP' | 'UDP', publicPort: number, port: number, allow: string) {
  const f = createForm();
  await f.getByLabel('Protocol', { exact: true }).selectOption({ label: protocol });
  await f.getByLabel('Public port', { exact: true }).fill(String(publicPort));
  await f.getByLabel('Client port', { exact: true }).fill(String(port));
  await f.getByLabel('Allowed sources', { exact: true }).fill(allow);
  await f.getByRole('button', { name: 'Create TCP or UDP tunnel' }).click();
}

s('create a TCP and a UDP tunnel through the form: listed with their public ports, stored as typed, filtered by protocol in the URL', timed(20_000, async () => {
  const { page } = browser;
  await page.goto(`${panel.url}/tunnels`);
  await list().getByText('No TCP or UDP tunnels.').waitFor();

  await create('TCP', TCP_PORT, 22, '203.0.113.0/24, 198.51.100.7');
  await toast(`Tunnel TCP ${TCP_PORT} created.`).waitFor();
  await stateSoon(`TCP ${TCP_PORT}`, 'offline no sessions');
  await create('UDP', UDP_PORT, 53, '203.0.113.0/24');
  await toast(`Tunnel UDP ${UDP_PORT} created.`).waitFor();
  await stateSoon(`UDP ${UDP_PORT}`, 'offline no sessions');

  await row(`UDP ${UDP_PORT}`).waitFor();
  assert.match(await row(`TCP ${TCP_PORT}`).innerText(), new RegExp(`^TCP ${TCP_PORT}\\s+22\\s+203\\.0\\.113\\.0/24, 198\\.51\\.100\\.7\\s+off\\s+—\\s+enabled`));
  assert.match(await row(`UDP ${UDP_PORT}`).innerText(), new RegExp(`^UDP ${UDP_PORT}\\s+53\\s+203\\.0\\.113\\.0/24\\s+off\\s+—\\s+enabled`));
  assert.equal(await stored(), [
    { protocol: 'tcp', publicPort: TCP_PORT, port: 22, allow: ['203.0.113.0/24', '198.51.100.7'], enabled: true },
    { protocol: 'udp', publicPort: UDP_PORT, port: 53, allow: ['203.0.113.0/24'], enabled: true },
  ]);
  // the form is empty again for the next one
  assert.is(await createForm().getByLabel('Public port', { exact: true }).inputValue(), '');

  await list().getByLabel('Show', { exact: true }).selectOption({ label: 'UDP' });
  await row(`TCP ${TCP_PORT}`).waitFor({ state: 'detached' });
  assert.is(await row(`UDP ${UDP_PORT}`).count(), 1);
  // kept in the URL: a reload (or a link) opens the list filtered, Back undoes the filter
  assert.is(new URL(page.url()).search, '?streams=udp');
  await page.reload();
  await row(`UDP ${UDP_PORT}`).waitFor();
  assert.is(await list().getByLabel('Show', { exact: true }).inputValue(), 'udp');
  assert.is(await row(`TCP ${TCP_PORT}`).count(), 0);
  await list().getByLabel('Show', { exact: true }).selectOption({ label: 'TCP' });
  await row(`TCP ${TCP_PORT}`).waitFor();
  await page.goBack();
  await row(`UDP ${UDP_PORT}`).waitFor();
  assert.is(await row(`TCP ${TCP_PORT}`).count(), 0, 'back to UDP only');
  await list().getByLabel('Show', { exact: true }).selectOption({ label: 'TCP and UDP' });
  await row(`TCP ${TCP_PORT}`).waitFor();
  assert.is(new URL(page.url()).search, '');
  await expectAccessible('streams-listed');
}));

s('a public port already taken, a source that is no address: the server\'s message is next to its field, and nothing is created', timed(15_000, async () => {
  await create('TCP', TCP_PORT, 2222, '');
  const field = createForm().locator('.field', { has: browser.page.getByLabel('Public port', { exact: true }) });
  const message = `Public port ${TCP_PORT} is already in use by the TCP tunnel on public port ${TCP_PORT}`;
  await field.locator('.field-error').filter({ hasText: message }).waitFor();
  assert.is(await createForm().getByLabel('Public port', { exact: true }).getAttribute('aria-invalid'), 'true');
  assert.is(await createForm().getByLabel('Public port', { exact: true }).inputValue(), String(TCP_PORT), 'what was typed stays, to be corrected');
  assert.is((await stored()).length, 2, 'nothing created');
  assert.is(await list().locator('tbody tr').count(), 2);

  // a source that is no address: named under the sources field, not as a path above the form
  await create('TCP', TCP_PORT + 2, 2222, '203.0.113.0/24, example.com');
  const sources = createForm().locator('.field', { has: browser.page.getByLabel('Allowed sources', { exact: true }) });
  await sources.locator('.field-error').filter({ hasText: "'example.com' is not an IPv4 or IPv6 address, nor a network in CIDR form (203.0.113.0/24)" }).waitFor();
  assert.is(await createForm().getByLabel('Allowed sources', { exact: true }).getAttribute('aria-invalid'), 'true');
  assert.is(await field.locator('.field-error').count(), 0, 'the public port\'s old refusal is gone');
  assert.match(await createForm().getByRole('alert').innerText(), /see the fields below/);
  assert.not.match(await createForm().innerText(), /allow\.1/);

  // a client port typed as a word: what to type instead, under that field
  await createForm().getByLabel('Allowed sources', { exact: true }).fill('');
  await createForm().getByLabel('Client port', { exact: true }).fill('ssh');
  await createForm().getByRole('button', { name: 'Create TCP or UDP tunnel' }).click();
  await createForm().locator('.field', { has: browser.page.getByLabel('Client port', { exact: true }) }).locator('.field-error').filter({ hasText: 'Port must be a number from 1 to 65535' }).waitFor();
  assert.is((await stored()).length, 2, 'nothing created');
}));

s('edit: opened in focus, a port out of range refused on its field, the allowed sources saved; the row and the stored record say the new list, focus back on Edit', timed(15_000, async () => {
  const { page } = browser;
  await page.getByRole('button', { name: `Edit TCP ${TCP_PORT}` }).click();
  const edit = page.locator('form[aria-labelledby="edit-stream"]');
  // opened below the list: focus on its heading, so a keyboard or screen reader user is taken there
  await page.waitForFunction(() => document.activeElement?.id === 'edit-stream');
  assert.is(await edit.getByLabel('Allowed sources', { exact: true }).inputValue(), '203.0.113.0/24, 198.51.100.7');
  // a public port out of the range: refused under its field, the form kept open
  await edit.getByLabel('Public port', { exact: true }).fill('443');
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.locator('.field-error').filter({ hasText: 'Public port 443 is outside the range for TCP and UDP tunnels (10000-60000)' }).waitFor();
  await edit.getByLabel('Public port', { exact: true }).fill(String(TCP_PORT));
  await edit.getByLabel('Allowed sources', { exact: true }).fill('192.0.2.0/24 198.51.100.8');
  await edit.getByRole('button', { name: 'Save' }).click();
  await toast(`Tunnel TCP ${TCP_PORT} saved.`).waitFor();
  await edit.waitFor({ state: 'detached' });
  // and focus is back on the Edit button that opened it, the user's place in the list
  assert.is(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), `Edit TCP ${TCP_PORT}`);
  assert.match(await row(`TCP ${TCP_PORT}`).innerText(), /192\.0\.2\.0\/24, 198\.51\.100\.8/);
  assert.equal((await stored())[0]!.allow, ['192.0.2.0/24', '198.51.100.8']);
}));

s('disable and enable: the badge and the stored flag follow', timed(15_000, async () => {
  const { page } = browser;
  await page.getByRole('button', { name: `Disable TCP ${TCP_PORT}` }).click();
  await toast(`Tunnel TCP ${TCP_PORT} disabled.`).waitFor();
  await row(`TCP ${TCP_PORT}`).getByText('disabled', { exact: true }).waitFor();
  await stateSoon(`TCP ${TCP_PORT}`, '—');
  assert.is((await stored())[0]!.enabled, false);
  await page.getByRole('button', { name: `Enable TCP ${TCP_PORT}` }).click();
  await toast(`Tunnel TCP ${TCP_PORT} enabled.`).waitFor();
  await row(`TCP ${TCP_PORT}`).getByText('enabled', { exact: true }).waitFor();
  await stateSoon(`TCP ${TCP_PORT}`, 'offline');
  assert.is((await stored())[0]!.enabled, true);
}));

s('traffic: a stream server\'s sessions show in its row, the last hour and the last minute, with the sparkline', timed(60_000, async () => {
  await sendSession(`tcp:${TCP_PORT}`, 300, 4096);
  await sendSession(`tcp:${TCP_PORT}`, 200, 1024);
  const cell = row(`TCP ${TCP_PORT}`).locator('td').nth(5);
  // told at the next status poll (every 5 s)
  await cell.getByText('last hour: 2 sessions, 500 B in, 5.0 KiB out').waitFor({ timeout: 30_000 });
  await cell.getByText('last minute: 2 sessions, 500 B in, 5.0 KiB out').waitFor();
  // a minute may turn between the sessions or before the poll: the sparkline's current minute then holds fewer
  await cell.getByRole('img', { name: /^Sessions per minute over the last hour: at most [12], [0-2] this minute$/ }).waitFor();
  // the UDP tunnel on its own number has none of them
  assert.match(await row(`UDP ${UDP_PORT}`).locator('td').nth(5).innerText(), /^offline\s+no sessions$/);
  await expectAccessible('streams-traffic');
  // at rest with its rows, held to every impact as the page walk holds the others
  assert.equal(await axeViolations(browser.page), [], 'axe, every impact, on the listed streams');
  // on a phone the rows scroll in their own box: the page is no wider than the screen
  await browser.page.setViewportSize({ width: 390, height: 844 });
  assert.is(await browser.page.evaluate(() => document.documentElement.scrollWidth > innerWidth), false, 'no page wider than a phone');
  assert.equal(await axeViolations(browser.page), [], 'axe, every impact, at 390 px');
  await screenshot(browser.page, 'streams-traffic-390');
  await browser.page.setViewportSize({ width: 1200, height: 900 });
  // the copy button names the tunnel as the row does
  await row(`TCP ${TCP_PORT}`).getByRole('button', { name: `Copy client remote of TCP ${TCP_PORT}`, exact: true }).waitFor();
}));

s('the tunnel\'s page from its row: the hour\'s sessions and bytes charted; Back to the list', timed(15_000, async () => {
  const { page } = browser;
  await row(`TCP ${TCP_PORT}`).getByRole('link', { name: `TCP ${TCP_PORT}`, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: `TCP tunnel on port ${TCP_PORT}` }).waitFor();
  const traffic = page.locator('section[aria-labelledby="stream-traffic"]');
  // the two sessions may fall in two minutes: the hour's sums, not the peak
  await traffic.getByRole('img', { name: /^Sessions and errors per minute over the last hour: 2 sessions, 0 errors,/ }).waitFor();
  await traffic.getByRole('img', { name: /^Bytes per minute over the last hour: 500 B in, 5\.0 KiB out,/ }).waitFor();
  await traffic.getByText(/^2 sessions, 500 B in, 5\.0 KiB out, 0 errors/).waitFor();
  await expectAccessible('stream-page');
  await page.goBack();
  await row(`UDP ${UDP_PORT}`).waitFor();
}));

s('delete asks first, then the row and the record are gone', timed(15_000, async () => {
  const { page } = browser;
  await page.getByRole('button', { name: `Delete UDP ${UDP_PORT}` }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText(`Delete the tunnel on UDP ${UDP_PORT}?`).waitFor();
  await dialog.getByRole('button', { name: 'Yes, continue', exact: true }).click();
  await toast(`Tunnel UDP ${UDP_PORT} deleted.`).waitFor();
  await row(`UDP ${UDP_PORT}`).waitFor({ state: 'detached' });
  assert.equal((await stored()).map((x) => x.publicPort), [TCP_PORT]);
}));

s.run();
