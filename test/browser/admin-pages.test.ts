// The panel's controls for the admin APIs that had none: the audit log page, the backup download,
// the API description and metrics links, push install, ticket scope registration and the
// hardware-bound admin certificate, clicked through against the real API on a fresh sandbox in
// development mode. The hardware-bound upgrade cannot be undone, so it runs last.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { list as listTar } from 'tar';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { timed } from '../helpers/timeout.ts';
import { completeOnboarding, openBrowser, startPanel, type Browser, type PanelServer, expectAccessible as expectAccessibleOn, closeBoth } from './harness.ts';

const run = promisify(execFile);
const s = suite('browser: audit log, backup, push install, scope registration and hardware-bound admin certificate on their real APIs (chromium)');
let panel: PanelServer;
let browser: Browser;
let work: string;

s.before(async () => {
  panel = await startPanel();
  await completeOnboarding(panel);
  browser = await openBrowser();
  work = await mkdtemp(join(tmpdir(), 'relay-admin-pages-'));
});

s.after(async () => {
  await closeBoth(browser, panel);
  if (work) await rm(work, { recursive: true, force: true });
});

s.after.each(async () => {
  await browser.page.unrouteAll();
  assert.equal(browser.pageErrors, [], 'no uncaught error in the page');
});

const expectAccessible = (name: string) => expectAccessibleOn(browser.page, name);
const confirm = () => browser.page.getByRole('dialog').getByRole('button', { name: 'Yes, continue' }).click();
const bodyRows = () => browser.page.locator('section[aria-labelledby="audit-entries"] tbody tr');

interface AuditEntry { time: string; actor: { role: string; label: string | null }; method?: string; route?: string; event?: string }
const audit = async (query: string) => (await panel.call<{ entries: AuditEntry[] }>('GET', `/api/audit?${query}`)).body.entries;

/** The datetime-local text for a time, in the browser's (and this process's) time zone. */
function localInput(time: number): string {
  const d = new Date(time);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

s('audit log: the entries of the API, newest first; page size and "Show older entries"; actor and since filters; a refused filter shows the API message', timed(90_000, async () => {
  const { page } = browser;
  // Refused requests are audited too: 60 entries by the admin, more than two pages of 25.
  for (let i = 0; i < 60; i++) assert.is((await panel.call('POST', '/api/tunnels', { subdomain: 'x' })).status, 400);
  await page.goto(`${panel.url}/`);
  await page.getByRole('link', { name: 'Audit log' }).click();
  await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
  const newest = await audit('limit=100');
  assert.ok(newest.length > 50, `enough entries for paging: ${newest.length}`);
  await page.getByText(`${newest.length} entries shown.`).waitFor();
  assert.is(await bodyRows().count(), newest.length);
  assert.match(await bodyRows().first().innerText(), /admin\s+POST \/api\/tunnels[\s\S]*400/);
  await expectAccessible('audit-log');

  await page.getByLabel('Entries per page').selectOption('25');
  await page.getByRole('button', { name: 'Apply filter' }).click();
  await page.getByText('25 entries shown.').waitFor();
  const olderRequest = page.waitForRequest((r) => r.url().includes('/api/audit?') && r.url().includes('before='));
  await page.getByRole('button', { name: 'Show older entries' }).click();
  await page.getByText('50 entries shown.').waitFor();
  const olderQuery = new URL((await olderRequest).url()).searchParams;
  assert.is(olderQuery.get('limit'), '25', 'the next page, not a longer first page');
  assert.is(olderQuery.get('before'), (await panel.call<{ next: string }>('GET', '/api/audit?limit=25')).body.next, "the first page's `next`");
  const fifty = await audit('limit=50');
  assert.equal(await bodyRows().locator('th time').evaluateAll((times) => times.map((t) => t.getAttribute('datetime'))), fifty.map((e) => e.time), 'the rows are the API\'s, in its order');

  await page.getByLabel('Actor').fill('system');
  await page.getByRole('button', { name: 'Apply filter' }).click();
  const system = await audit('actor=system&limit=25');
  assert.ok(system.length > 0 && system.length < 25, `a few system events: ${system.length}`);
  await page.getByText(`${system.length} ${system.length === 1 ? 'entry' : 'entries'} shown for system.`).waitFor();
  for (const actor of await bodyRows().locator('td:nth-child(2)').allInnerTexts()) assert.is(actor, 'system');
  assert.is(await page.getByRole('button', { name: 'Show older entries' }).count(), 0, 'the whole filtered list is shown');

  await page.getByLabel('Actor').fill('');
  const sent = page.waitForRequest((r) => r.url().includes('/api/audit?') && r.url().includes('since='));
  // one reading of the clock: two would differ across a minute's turn
  const future = localInput(Date.now() + 2 * 86_400_000);
  await page.getByLabel('Since').fill(future);
  await page.getByRole('button', { name: 'Apply filter' }).click();
  const since = new URL((await sent).url()).searchParams.get('since')!;
  assert.is(Date.parse(since), new Date(future).getTime(), 'the local time is sent as an ISO time');
  await page.getByText('No entries match.').waitFor();
  assert.equal(await audit(`since=${encodeURIComponent(since)}`), []);

  await page.getByLabel('Since').fill('');
  await page.getByLabel('Actor').fill('a'.repeat(200));
  await page.getByRole('button', { name: 'Apply filter' }).click();
  await page.getByRole('alert').filter({ hasText: 'Validation failed' }).waitFor();
}));

s('backup: the download button saves the archive of GET /api/backup; a refusal shows the server\'s message', timed(60_000, async () => {
  const { page } = browser;
  await page.goto(`${panel.url}/settings`);
  await page.getByRole('heading', { name: 'Restoring' }).waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download backup' }).click()]);
  assert.match(download.suggestedFilename(), /^relay-panel-backup-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.tar\.gz$/);
  const file = join(work, 'backup.tar.gz');
  await download.saveAs(file);
  const saved = await page.getByRole('status').filter({ hasText: /^Saved relay-panel-backup-/ }).innerText();
  assert.ok(saved.includes(download.suggestedFilename()), saved);
  const entries: string[] = [];
  await listTar({ file, onReadEntry: (entry) => void entries.push(entry.path) });
  assert.is(entries[0], 'manifest.json');
  assert.ok(entries.includes('config.json'), 'the configuration is in it');
  const manifest = JSON.parse((await run('tar', ['-xzOf', file, 'manifest.json'])).stdout);
  assert.ok(manifest.sections.includes('data'), JSON.stringify(manifest));
  // this panel's state: the configuration holds the domain onboarding set
  const config = JSON.parse((await run('tar', ['-xzOf', file, 'config.json'])).stdout);
  assert.is(config.domain, (await panel.call('GET', '/api/onboarding/status')).body.domain);
  await expectAccessible('settings-backup');

  await page.route('**/api/backup', (route) => route.fulfill({ status: 409, json: { error: 'A backup needs the configuration on disk' } }));
  let downloads = 0;
  page.on('download', () => downloads++);
  await page.getByRole('button', { name: 'Download backup' }).click();
  await page.getByRole('alert').filter({ hasText: 'A backup needs the configuration on disk' }).waitFor();
  assert.is(await page.getByRole('status').filter({ hasText: /^Saved / }).count(), 0, 'the earlier success is not shown beside the error');
  assert.is(downloads, 0, 'nothing saved');
}));

s('restore: pick a backup file, the dialog names what it replaces, confirm, the panel comes back with the backup\'s tunnels', timed(90_000, async () => {
  const { page } = browser;
  assert.is((await panel.call('POST', '/api/tunnels', { subdomain: 'kept', port: 9101 })).status, 201);
  const file = join(work, 'restore-me.tar.gz');
  const archive = await fetch(`${panel.url}/api/backup`);
  assert.is(archive.status, 200);
  await writeFile(file, Buffer.from(await archive.arrayBuffer()));
  const kept = (await panel.call<{ tunnels: { id: string; subdomain: string }[] }>('GET', '/api/tunnels')).body.tunnels.find((t) => t.subdomain === 'kept')!;
  assert.is((await panel.call('DELETE', `/api/tunnels/${kept.id}`)).status, 200);
  assert.is((await panel.call('POST', '/api/tunnels', { subdomain: 'later', port: 9102 })).status, 201);

  await page.goto(`${panel.url}/settings`);
  await page.getByText('The panel restarts in its process with the restored state.').waitFor();
  await page.getByLabel('Backup file', { exact: true }).setInputFiles(file);
  await page.getByRole('button', { name: 'Restore…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const question = await dialog.innerText();
  assert.match(question, /Replace this panel's tunnels, sites, portal users, agents, certificates[\s\S]*with the backup of/);
  const tunnelsInBackup = (await panel.call<{ tunnels: unknown[] }>('GET', '/api/tunnels')).body.tunnels.length; // kept went, later came: as many
  assert.match(question, new RegExp(`: ${tunnelsInBackup} tunnels?, `));
  await dialog.getByRole('button', { name: 'Yes, continue' }).click();
  await page.getByRole('status').filter({ hasText: /^Restored the backup of / }).waitFor({ timeout: 60_000 });
  await expectAccessible('settings-restored');

  const subdomains = (await panel.call<{ tunnels: { subdomain: string }[] }>('GET', '/api/tunnels')).body.tunnels.map((t) => t.subdomain);
  assert.ok(subdomains.includes('kept') && !subdomains.includes('later'), subdomains.join(', '));
  await page.goto(`${panel.url}/tunnels`);
  await page.getByText('kept', { exact: false }).first().waitFor();
  assert.is(await page.getByText(/^later\b/).count(), 0, 'the tunnel made after the backup is gone');
}));

s('restore: a file that is not a panel backup is refused with the server\'s reason, and nothing is replaced', timed(30_000, async () => {
  const { page } = browser;
  const file = join(work, 'not-a-backup.tar.gz');
  await writeFile(file, 'definitely not a gzipped tar');
  const before = (await panel.call<{ tunnels: unknown[] }>('GET', '/api/tunnels')).body.tunnels.length;
  await page.goto(`${panel.url}/settings`);
  await page.getByLabel('Backup file', { exact: true }).setInputFiles(file);
  await page.getByRole('button', { name: 'Restore…' }).click();
  await page.getByRole('alert').filter({ hasText: /^Not a usable relay-panel backup: / }).waitFor();
  assert.is(await page.getByRole('dialog').count(), 0, 'no confirmation for a refused file');
  assert.is((await panel.call<{ tunnels: unknown[] }>('GET', '/api/tunnels')).body.tunnels.length, before);
}));

s('settings: the API description and metrics links open what the server serves', timed(30_000, async () => {
  const { page, context } = browser;
  await page.goto(`${panel.url}/settings`);
  const [openapi] = await Promise.all([context.waitForEvent('page'), page.getByRole('link', { name: /API description/ }).click()]);
  await openapi.waitForLoadState();
  const document = JSON.parse(await openapi.locator('body').innerText());
  assert.ok(document.paths['/api/audit'], 'the OpenAPI document');
  await openapi.close();
  const [metrics] = await Promise.all([context.waitForEvent('page'), page.getByRole('link', { name: /Metrics/ }).click()]);
  await metrics.waitForLoadState();
  assert.match(await metrics.locator('body').innerText(), /relay_http_requests_total/);
  await metrics.close();
}));

s('phone: at 390 px the header is one row, the sections open behind a menu button; Escape closes back to the button, a link navigates and closes it', timed(45_000, async () => {
  const { page } = browser;
  const header = page.locator('header.top');
  const menu = page.getByRole('button', { name: 'Menu' });
  // Located by markup: folded, the navigation is out of the accessibility tree.
  const sections = page.locator('header nav[aria-label="Sections"]');
  const sites = sections.locator('a[href="/sites"]');
  const headerHeight = async () => (await header.boundingBox())!.height;
  const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto(`${panel.url}/`);
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    assert.ok(await headerHeight() <= 60, `one header row on a phone: ${await headerHeight()} px`);
    assert.is(await menu.getAttribute('aria-expanded'), 'false');
    assert.is(await menu.getAttribute('aria-controls'), await sections.getAttribute('id'), 'the button names the navigation it opens');
    assert.is(await sites.isVisible(), false, 'folded');

    await menu.click();
    assert.is(await menu.getAttribute('aria-expanded'), 'true');
    assert.ok(await sites.isVisible(), 'open');
    assert.is(await focused(), 'Menu', 'opening keeps focus on the button');
    await expectAccessible('phone-menu-open');
    await page.keyboard.press('Escape');
    assert.is(await menu.getAttribute('aria-expanded'), 'false');
    assert.is(await sites.isVisible(), false, 'Escape folds it');
    assert.is(await focused(), 'Menu', 'Escape returns focus to the button');

    await menu.click();
    await sites.click();
    await page.getByRole('heading', { level: 1, name: 'Sites' }).waitFor();
    assert.is(await menu.getAttribute('aria-expanded'), 'false', 'choosing a section folds the menu');
    assert.ok(await headerHeight() <= 60, `still one row: ${await headerHeight()} px`);
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
  assert.is(await menu.isVisible(), false, 'no menu button on a wide screen');
  assert.ok(await sites.isVisible(), 'the sections are shown as before');
}));

s('dark mode: with prefers-color-scheme dark the page is dark and axe finds no serious violation', timed(45_000, async () => {
  const { page } = browser;
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    const pages: [string, string][] = [['/', 'Dashboard'], ['/audit', 'Audit log'], ['/settings', 'Settings']];
    for (const [path, heading] of pages) {
      await page.goto(panel.url + path);
      await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
      await page.waitForFunction(() => !document.querySelector('[role=status]')?.textContent?.includes('Loading'));
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      // An opaque rgb() (a transparent body is rgba(0, 0, 0, 0)) with every channel low.
      const channels = /^rgb\((\d+), (\d+), (\d+)\)$/.exec(background)?.slice(1).map(Number) ?? [];
      assert.ok(channels.length === 3 && channels.every((c) => c < 64), `${path}: a dark background, not ${background}`);
      await expectAccessible(`dark${path === '/' ? '-dashboard' : path.replace(/\//g, '-')}`);
    }
  } finally {
    await page.emulateMedia({ colorScheme: null });
  }
}));

interface Policy { id: string; name: string; description: string; allowedPlugins: string[]; allowedActions: string[]; deniedIps: string[] }
const policies = async () => (await panel.call<{ policies: Policy[] }>('GET', '/api/plugins/push-install/policies')).body.policies;
interface Grant { label: string; policyId: string; enabledAt: string; expiresAt: string }
const openWindows = async () => (await panel.call<{ grants: Grant[] }>('GET', '/api/plugins/push-install/grants')).body.grants;
const pushes = async () => (await panel.call<{ sessions: { label: string; packageName: string | null; action: string }[] }>('GET', '/api/plugins/push-install/sessions')).body.sessions;

s('push install: the default policy kept, a policy made and edited, the switch and default policy, a window opened (still listed after a reload) and ended, pushes allowed and refused', timed(90_000, async () => {
  const { page } = browser;
  assert.is((await panel.call('POST', '/api/certs/agent', { label: 'laptop-1', capabilities: ['tunnels:read'] })).status, 201);
  await page.goto(`${panel.url}/plugins`);
  await page.getByRole('link', { name: 'Push install' }).click();
  await page.getByRole('heading', { level: 1, name: 'Push install' }).waitFor();
  // Portlama's model: the `default` policy is always there, and cannot be deleted.
  await page.getByRole('row', { name: /^Default \(default\)/ }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Delete policy Default' }).count(), 0, 'no Delete for the default policy');

  const newPolicy = page.locator('form[aria-labelledby="new-policy"]');
  await newPolicy.getByLabel('Policy name').fill('Tools');
  await newPolicy.getByLabel('Allowed plugins').fill('@acme/hello, Not A Package');
  await newPolicy.getByRole('button', { name: 'Create policy' }).click();
  await newPolicy.getByRole('alert').filter({ hasText: 'Validation failed' }).waitFor();
  assert.equal((await policies()).map((p) => p.id), ['default'], 'a refused policy is not made');
  await newPolicy.getByLabel('Allowed plugins').fill('@acme/hello');
  await newPolicy.getByLabel('update').uncheck();
  await newPolicy.getByRole('button', { name: 'Create policy' }).click();
  await page.getByRole('row', { name: /^Tools / }).waitFor();
  const made = (await policies()).find((p) => p.name === 'Tools');
  assert.equal([made?.id, made?.description, made?.allowedPlugins, made?.allowedActions], ['tools', '', ['@acme/hello'], ['install', 'check-prerequisites']], 'the id made from the name');
  assert.is(await newPolicy.getByLabel('Policy name').inputValue(), '', 'the form is cleared');

  await page.getByRole('button', { name: 'Edit policy Tools' }).click();
  await page.locator('form[aria-labelledby="edit-policy"]').getByLabel('Description').fill('command-line tools');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await page.getByRole('row', { name: /^Tools.*command-line tools/ }).waitFor();
  assert.is((await policies()).find((p) => p.id === 'tools')?.description, 'command-line tools');

  await page.getByLabel('Push install on').check();
  await page.getByLabel('Default policy').selectOption({ label: 'Tools' });
  await page.getByRole('button', { name: 'Save push-install settings' }).click();
  await page.getByRole('heading', { name: /Push install enabled/ }).waitFor();
  const config = (await panel.call('GET', '/api/plugins/push-install/config')).body;
  assert.equal([config.enabled, config.defaultPolicy], [true, 'tools']);
  await page.getByRole('row', { name: /^Tools \(default\)/ }).waitFor();

  const pushForm = page.locator('form[aria-labelledby="push-title"]');
  await pushForm.getByLabel('Plugin package').fill('@acme/hello');
  await pushForm.getByRole('button', { name: 'Push' }).click();
  await pushForm.getByRole('alert').filter({ hasText: 'Push install access not enabled for agent "laptop-1"' }).waitFor();

  const windows = page.locator('section[aria-labelledby="window-title"]');
  const windowForm = windows.locator('form[aria-labelledby="open-window-title"]');
  await windows.getByText('No window is open.').waitFor();
  assert.is(await windowForm.getByLabel('Agent').inputValue(), 'laptop-1', 'the active agent is offered');
  await windowForm.getByLabel('Duration (minutes)').fill('0');
  await windowForm.getByRole('button', { name: 'Open window' }).click();
  await windowForm.locator('.field-error').waitFor();
  assert.equal(await openWindows(), [], 'a refused window is not opened');
  await windowForm.getByLabel('Duration (minutes)').fill('30');
  const opened = Date.now();
  await windowForm.getByRole('button', { name: 'Open window' }).click();
  const note = windows.getByText(/^laptop-1 may receive pushes under the policy Tools until /);
  await note.waitFor();
  const until = Date.parse((await note.locator('time').getAttribute('datetime'))!);
  assert.ok(Math.abs(until - opened - 30 * 60_000) < 60_000, `a 30-minute window: ${new Date(until).toISOString()}`);
  const [grant] = await openWindows();
  assert.equal([grant?.label, grant?.policyId, Date.parse(grant!.expiresAt)], ['laptop-1', made!.id, until], 'the API lists the window the page opened');

  // What the page lists comes from the server: a reload keeps the window, with its end time.
  await page.reload();
  const windowRow = windows.getByRole('row', { name: /^laptop-1 Tools / });
  await windowRow.waitFor();
  assert.equal(await windowRow.locator('time').evaluateAll((times) => times.map((t) => t.getAttribute('datetime'))), [grant!.enabledAt, grant!.expiresAt]);
  const shown = await page.evaluate((iso) => new Date(iso).toLocaleString(), grant!.expiresAt);
  assert.is(await windowRow.getByRole('cell').nth(2).innerText(), shown, 'the Ends column shows the end time');
  await pushForm.getByLabel('Plugin package').fill('@acme/hello');

  await pushForm.getByRole('button', { name: 'Push' }).click();
  await pushForm.getByText('Requested: install of @acme/hello on laptop-1.').waitFor();
  await page.getByRole('row', { name: /laptop-1 @acme\/hello install Tools requested/ }).waitFor();
  assert.equal((await pushes()).map((p) => `${p.label} ${p.action} ${p.packageName}`), ['laptop-1 install @acme/hello']);

  // The policy's source-address rules (Portlama's deniedIps): this browser's address refused, then allowed again.
  const denySource = async (value: string) => {
    await page.getByRole('button', { name: 'Edit policy Tools' }).click();
    await page.locator('form[aria-labelledby="edit-policy"]').getByLabel('Denied source addresses').fill(value);
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.locator('form[aria-labelledby="edit-policy"]').waitFor({ state: 'detached' });
  };
  await denySource('127.0.0.1');
  assert.equal((await policies()).find((p) => p.id === 'tools')?.deniedIps, ['127.0.0.1']);
  await pushForm.getByLabel('Plugin package').fill('@acme/hello');
  await pushForm.getByRole('button', { name: 'Push' }).click();
  await pushForm.getByRole('alert').filter({ hasText: 'Source IP is not allowed' }).waitFor();
  await denySource('');
  assert.equal((await policies()).find((p) => p.id === 'tools')?.deniedIps, []);

  await pushForm.getByLabel('Plugin package').fill('@acme/hello');
  await pushForm.getByLabel('Push action').selectOption('uninstall');
  await pushForm.getByRole('button', { name: 'Push' }).click();
  await pushForm.getByRole('alert').filter({ hasText: 'Action "uninstall" is not allowed by the assigned policy' }).waitFor();
  assert.is((await pushes()).length, 1, 'a refused push is not recorded');

  // check-prerequisites names no package: the field is left empty.
  await pushForm.getByLabel('Push action').selectOption('check-prerequisites');
  await pushForm.getByLabel('Plugin package').fill('');
  await pushForm.getByRole('button', { name: 'Push' }).click();
  await pushForm.getByText('Requested: check-prerequisites on laptop-1.').waitFor();
  await page.getByRole('row', { name: /laptop-1 — check-prerequisites Tools requested/ }).waitFor();
  assert.equal((await pushes()).map((p) => `${p.label} ${p.action} ${p.packageName}`), ['laptop-1 check-prerequisites null', 'laptop-1 install @acme/hello']);

  await page.getByLabel('Show pushes to').selectOption('laptop-1');
  await page.getByRole('row', { name: /laptop-1 @acme\/hello install/ }).waitFor();
  await expectAccessible('push-install');

  await page.getByRole('button', { name: 'Delete policy Tools' }).click();
  await confirm();
  await page.getByRole('alert').filter({ hasText: 'Policy "tools" is in use' }).waitFor();
  assert.ok((await policies()).some((p) => p.id === 'tools'), 'a policy an open window uses is kept');

  await windowRow.getByRole('button', { name: 'End window of laptop-1' }).click();
  await windows.getByText('The window of laptop-1 is closed.').waitFor();
  await windows.getByText('No window is open.').waitFor();
  assert.is(await windows.getByRole('button', { name: 'End window of laptop-1' }).count(), 0, 'an ended window has no End control');
  assert.equal(await openWindows(), [], 'the API no longer lists it');
  await pushForm.getByLabel('Push action').selectOption('install');
  await pushForm.getByLabel('Plugin package').fill('@acme/hello');
  await pushForm.getByRole('button', { name: 'Push' }).click();
  await pushForm.getByRole('alert').filter({ hasText: 'Push install access not enabled for agent "laptop-1"' }).waitFor();
  assert.is((await pushes()).length, 2);
  await page.reload();
  await windows.getByText('No window is open.').waitFor();

  // Deleting the configured default makes `default` the default again (Portlama's rule).
  await page.getByRole('button', { name: 'Delete policy Tools' }).click();
  await confirm();
  await page.getByRole('row', { name: /^Default \(default\)/ }).waitFor();
  assert.equal((await policies()).map((p) => p.id), ['default']);
  assert.is((await panel.call('GET', '/api/plugins/push-install/config')).body.defaultPolicy, 'default');
}));

s('tickets: a scope manifest pasted in the page is registered; text that is not JSON and a refused manifest show why', timed(60_000, async () => {
  const { page } = browser;
  const scopes = async () => (await panel.call<{ scopes: { name: string }[] }>('GET', '/api/tickets/scopes')).body.scopes.map((x) => x.name);
  const manifest = (capability: string) => JSON.stringify({
    name: 'backup', version: '1.0.0', description: 'Backups between agents',
    scopes: [{ name: capability, description: 'Run a backup', instanceScoped: true }],
    transport: { strategies: ['tunnel'], preferred: 'tunnel', port: 0, protocol: 'wss' },
  }, null, 2);
  await page.goto(`${panel.url}/tickets`);
  await page.getByText('No scopes registered.').waitFor();
  const form = page.locator('form[aria-labelledby="register-scope"]');
  await form.getByLabel('Scope manifest (JSON)').fill('{"name": "backup",');
  await form.getByRole('button', { name: 'Register scope' }).click();
  await form.getByRole('alert').filter({ hasText: 'The manifest is not JSON' }).waitFor();
  await form.getByLabel('Scope manifest (JSON)').fill(manifest('run'));
  await form.getByRole('button', { name: 'Register scope' }).click();
  await form.getByRole('alert').filter({ hasText: 'Validation failed: scopes.0.name: must be a capability name in scope:action format' }).waitFor();
  assert.equal(await scopes(), [], 'nothing registered');

  await form.getByLabel('Scope manifest (JSON)').fill(manifest('backup:run'));
  await form.getByRole('button', { name: 'Register scope' }).click();
  await form.getByText('Registered capabilities: backup:run.').waitFor();
  await page.getByRole('row', { name: /^backup 1\.0\.0 backup:run/ }).waitFor();
  assert.equal(await scopes(), ['backup']);
  assert.is(await form.getByLabel('Scope manifest (JSON)').inputValue(), '', 'the form is cleared');
  await expectAccessible('tickets-register-scope');
}));

s('certificates: binding the admin certificate to a hardware key asks first, shows a refused CSR, then signs the key\'s CSR', timed(60_000, async () => {
  const { page } = browser;
  const mode = async () => (await panel.call<{ adminAuthMode: string }>('GET', '/api/certs/admin/auth-mode')).body.adminAuthMode;
  await run('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=token', '-keyout', join(work, 'key.pem'), '-out', join(work, 'admin.csr')]);
  const csr = await readFile(join(work, 'admin.csr'), 'utf8');
  await page.goto(`${panel.url}/certs`);
  const section = page.locator('section[aria-labelledby="hardware-title"]');
  await section.getByLabel('Certificate signing request (PEM)').fill('-----BEGIN CERTIFICATE REQUEST-----\nbm90IGEgQ1NS\n-----END CERTIFICATE REQUEST-----');
  await section.getByRole('button', { name: 'Bind to the hardware key' }).click();
  await confirm();
  await section.getByRole('alert').filter({ hasText: 'Invalid certificate signing request' }).waitFor();
  assert.is(await mode(), 'p12');

  await section.getByLabel('Certificate signing request (PEM)').fill(csr);
  await section.getByRole('button', { name: 'Bind to the hardware key' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  assert.is(await mode(), 'p12', 'cancelled: nothing sent');
  await expectAccessible('certs-hardware-bound-form');

  await section.getByRole('button', { name: 'Bind to the hardware key' }).click();
  await confirm();
  await section.getByText(/The admin certificate is now hardware-bound/).waitFor();
  assert.is(await mode(), 'hardware-bound');
  const { adminCertificate } = (await panel.call('GET', '/api/certs')).body;
  assert.ok(adminCertificate.serial && (await section.innerText()).includes(`serial ${adminCertificate.serial}`));
  await page.getByText('The admin certificate is hardware-bound: it cannot be rotated here.').waitFor();
  assert.is(await page.getByRole('button', { name: 'Rotate admin certificate' }).count(), 0);

  const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: /Download the admin certificate/ }).click()]);
  assert.is(download.suggestedFilename(), 'admin.crt');
  const cert = join(work, 'admin.crt');
  await download.saveAs(cert);
  const subject = (await run('openssl', ['x509', '-in', cert, '-noout', '-subject'])).stdout;
  assert.match(subject, /CN\s*=\s*admin/);
  const certKey = (await run('openssl', ['x509', '-in', cert, '-noout', '-pubkey'])).stdout;
  const csrKey = (await run('openssl', ['req', '-in', join(work, 'admin.csr'), '-noout', '-pubkey'])).stdout;
  assert.is(certKey, csrKey, 'the certificate carries the hardware key\'s public key');
  await expectAccessible('certs-hardware-bound-done');
}));

s.run();
