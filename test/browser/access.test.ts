// The panel's access controls against the real API on a fresh sandbox in development mode: a
// tunnel's Access section (restricted to a user and a group, a bypassed path, public only behind
// its confirmation) and the Access page (a group renamed into the rules that name it, what one
// user can reach). One page session, the steps in order: each builds on the state the last left.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deferred } from '../helpers/deferred.ts';
import { timed } from '../helpers/timeout.ts';
import { onboardedSession, type Browser, type PanelServer, expectAccessible as expectAccessibleOn } from './harness.ts';

const s = suite('browser: a tunnel\'s access, groups and who can reach what on their real APIs (chromium)');
let panel: PanelServer;
let browser: Browser;
let tunnel: { id: string; fqdn: string };

const user = (username: string, groups: string[]) => ({ username, displayname: username, email: `${username}@example.test`, password: `${username}-long-password`, groups });

onboardedSession(s, (p, b) => {
  panel = p;
  browser = b;
});

s.before(async () => {
  for (const u of [user('alice', []), user('bob', ['ops']), user('carol', [])]) {
    const r = await panel.call('POST', '/api/users', u);
    assert.is(r.status, 201, JSON.stringify(r.body));
  }
  const created = await panel.call('POST', '/api/tunnels', { subdomain: 'wiki', port: 9101 });
  assert.is(created.status, 201, JSON.stringify(created.body));
  tunnel = created.body.tunnel;
});

const expectAccessible = (name: string) => expectAccessibleOn(browser.page, name);
const stored = async () => (await panel.call('GET', `/api/tunnels/${tunnel.id}/access`)).body.access;
const form = () => browser.page.locator('form[aria-label^="Access to "]');
const storedText = () => form().getByTestId('stored-access');
const saved = () => browser.page.getByRole('status').filter({ hasText: `Access to ${tunnel.fqdn} saved.` });
const dialog = () => browser.page.getByRole('dialog');

async function openTunnel() {
  await browser.page.goto(`${panel.url}/tunnels/${encodeURIComponent(tunnel.id)}`);
  await storedText().waitFor();
}

/** Public chosen and saved: the confirmation comes, with the warning; `answer` closes it. */
async function savePublic(answer: 'Yes, continue' | 'Cancel') {
  await form().getByLabel('Who may open it').selectOption('public');
  await form().getByRole('button', { name: 'Save access' }).click();
  await dialog().waitFor();
  assert.match(await dialog().innerText(), /Make this tunnel PUBLIC\? Anyone on the internet will reach it with no sign-in/);
  await dialog().getByRole('button', { name: answer, exact: true }).click();
  await dialog().waitFor({ state: 'detached' });
}

s('tunnel page: going public asks first, and Cancel stores nothing; Yes stores it and the server\'s warning is shown', timed(30_000, async () => {
  const { page } = browser;
  await openTunnel();
  assert.equal(await stored(), { mode: 'authenticated', users: [], groups: [], rules: [] });
  assert.match(await storedText().innerText(), /every signed-in portal user; no path or network rules/);
  await expectAccessible('tunnel-access');

  await savePublic('Cancel');
  assert.equal(await stored(), { mode: 'authenticated', users: [], groups: [], rules: [] }, 'cancelled: nothing stored');
  assert.match(await storedText().innerText(), /every signed-in portal user/);
  assert.is(await saved().count(), 0, 'no "saved" for a cancelled change');
  assert.is(await page.getByText('This tunnel is PUBLIC').count(), 0, 'no warning for a tunnel that is not public');

  await savePublic('Yes, continue');
  await saved().waitFor();
  assert.equal(await stored(), { mode: 'public', users: [], groups: [], rules: [] });
  assert.match(await storedText().innerText(), /PUBLIC: anyone, no sign-in/);
  await page.getByText('This tunnel is PUBLIC: anyone on the internet reaches it, with no sign-in. Its app must do its own authentication.').waitFor();
}));

s('tunnel page: restricted to a user and a group with a bypassed path, saved, is what the API stores; public again asks again', timed(30_000, async () => {
  const { page } = browser;
  await openTunnel(); // loaded public: the editor starts from the stored public access
  const f = form();
  await f.getByLabel('Who may open it').selectOption('restricted');
  await f.getByLabel('Users').fill('alice');
  await f.getByLabel('Groups').fill('ops');
  await f.getByRole('button', { name: 'Add a rule' }).click();
  const rule = f.getByRole('group', { name: 'Rule 1' });
  assert.is(await rule.getByLabel('Rule 1: what happens').inputValue(), 'bypass', 'a new rule lets through by default');
  await rule.getByLabel('Paths (regular expressions, space-separated)').fill('^/webhook$');
  await rule.getByLabel('Methods').fill('post');
  await expectAccessible('tunnel-access-restricted');
  await f.getByRole('button', { name: 'Save access' }).click();
  await saved().waitFor();
  assert.equal(await stored(), { mode: 'restricted', users: ['alice'], groups: ['ops'], rules: [{ policy: 'bypass', resources: ['^/webhook$'], methods: ['POST'] }] });
  assert.match(await storedText().innerText(), /only alice, group ops \(and the admins\); 1 rule\(s\) first/);
  assert.is(await page.getByText('This tunnel is PUBLIC').count(), 0, 'no longer public: no warning');

  // the page was loaded while the tunnel was public: going public again from what is stored now still asks
  await savePublic('Cancel');
  assert.equal((await stored()).mode, 'restricted', 'cancelled: still restricted');

  // a name the portal does not know is refused with the server's word, and nothing changes
  await f.getByLabel('Who may open it').selectOption('restricted');
  await f.getByLabel('Users').fill('alice, nobody');
  await f.getByRole('button', { name: 'Save access' }).click();
  await f.getByText(/Unknown user 'nobody'/).waitFor();
  assert.equal((await stored()).users, ['alice']);
}));

s('access page: a group renamed is renamed in the tunnel\'s rule; who can reach the tunnel, per user', timed(30_000, async () => {
  const { page } = browser;
  await page.goto(`${panel.url}/`);
  await page.getByRole('link', { name: 'Access', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Access' }).waitFor();
  const groups = page.locator('section[aria-labelledby="groups"]');
  const row = (name: string) => groups.locator('tbody tr', { has: page.locator('td, th', { hasText: new RegExp(`^${name}$`) }) });
  await row('ops').waitFor();
  assert.match(await row('ops').innerText(), new RegExp(`ops\\s+bob\\s+${tunnel.fqdn.replace(/\./g, '\\.')}`));
  await expectAccessible('access-page');

  await page.getByRole('button', { name: 'Edit group ops' }).click();
  const edit = page.locator('form[aria-labelledby="group-edit"]');
  await edit.getByLabel('Name').fill('operators');
  await edit.getByLabel('Members').fill('bob, carol');
  await edit.getByRole('button', { name: 'Save group' }).click();
  await page.getByRole('status').filter({ hasText: 'Group ops saved.' }).waitFor();
  await row('operators').waitFor();
  assert.is(await row('ops').count(), 0, 'the old name is gone');
  assert.match(await row('operators').innerText(), /operators\s+bob, carol\s+/);
  assert.equal((await stored()).groups, ['operators'], 'the tunnel\'s rule names the new group');
  const users = (await panel.call('GET', '/api/users')).body.users as { username: string; groups: string[] }[];
  assert.equal(users.filter((u) => u.groups.includes('operators')).map((u) => u.username).sort(), ['bob', 'carol']);

  // who can reach what: bob through the group, alice by name; an admin-less user outside both sees nothing
  const reach = page.locator('section[aria-labelledby="reach"]');
  const apps = (name: string) => reach.getByRole('table', { name: `Apps ${name} may open` });
  await reach.getByLabel('Portal user').selectOption('bob');
  await apps('bob').locator('tbody tr').first().waitFor();
  assert.match(await apps('bob').locator('tbody').innerText(), new RegExp(`${tunnel.fqdn.replace(/\./g, '\\.')}\\s+tunnel\\s+restricted\\s+group:operators`));
  // alice's answer held back until the check: bob's rows are not shown under her name meanwhile
  const aliceRoute = '**/api/access/users/alice';
  const [asked, held] = [deferred(), deferred()];
  await page.route(aliceRoute, async (route) => { asked.resolve(); await held.promise; await route.continue(); });
  try {
    await reach.getByLabel('Portal user').selectOption('alice');
    await asked.promise;
    assert.is(await reach.getByText('group:operators').count(), 0, 'no rows of the user chosen before while the new one loads');
  } finally {
    held.resolve();
  }
  await apps('alice').waitFor();
  await page.unroute(aliceRoute);
  assert.match(await apps('alice').locator('tbody').innerText(), /tunnel\s+restricted\s+user:alice/);

  // carol leaves the group: she may open nothing
  assert.is((await panel.call('PUT', '/api/access/groups/operators/members', { users: ['bob'] })).status, 200);
  await reach.getByLabel('Portal user').selectOption('carol');
  await reach.getByText('carol may open no app.').waitFor();
  assert.is(await reach.getByText(tunnel.fqdn).count(), 0);
  await expectAccessible('access-reach');

  // and the tunnel's page says the new name
  await openTunnel();
  assert.match(await storedText().innerText(), /only alice, group operators \(and the admins\)/);
}));

s('site settings: its Access restricted to a user and a group with a refused network is what the API stores, and a settings save after it keeps it', timed(30_000, async () => {
  const { page } = browser;
  const made = await panel.call('POST', '/api/sites', { name: 'docs', type: 'managed' });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const site: { id: string; fqdn: string } = made.body.site;
  const siteAccess = async () => (await panel.call('GET', `/api/sites/${site.id}/access`)).body;
  const expected = { mode: 'restricted', users: ['alice'], groups: ['operators'], rules: [{ policy: 'deny', networks: ['203.0.113.0/24'] }] };
  await page.goto(`${panel.url}/sites`);
  await page.getByRole('button', { name: 'Settings of docs' }).click();
  const f = form();
  await f.waitFor();
  await page.getByText('Portal protection is off for this site: its access applies once protection is on.').waitFor();
  assert.equal(await f.getByLabel('Who may open it').locator('option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value)), ['authenticated', 'restricted'], 'a site cannot be public');
  await f.getByLabel('Who may open it').selectOption('restricted');
  await f.getByLabel('Users').fill('alice');
  await f.getByLabel('Groups').fill('operators');
  await f.getByRole('button', { name: 'Add a rule' }).click();
  await f.getByLabel('Rule 1: what happens').selectOption('deny');
  await f.getByLabel('Networks').fill('203.0.113.0/24');
  await f.getByRole('button', { name: 'Save access' }).click();
  await page.getByRole('status').filter({ hasText: `Access to ${site.fqdn} saved.` }).waitFor();
  assert.equal((await siteAccess()).access, expected);
  await expectAccessible('site-access');

  // the settings beside it say the user the access now allows, and saving them (protection on) keeps the access whole
  const settings = page.locator('form[aria-labelledby="site-settings"]');
  await page.waitForFunction(() => (document.querySelector('form[aria-labelledby="site-settings"] [data-testid="stored-settings"]')?.textContent ?? '').includes('allowed users: alice'));
  assert.is(await settings.getByLabel('Allowed users').inputValue(), 'alice');
  await settings.getByLabel('Protected by the portal').check();
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await page.getByRole('status').filter({ hasText: `Site ${site.fqdn} updated.` }).waitFor();
  const after = await siteAccess();
  assert.is(after.protected, true);
  assert.equal(after.access, expected, 'the settings save did not drop the access set beside it');
  assert.ok((await panel.call('GET', '/api/access/users/bob')).body.apps.some((a: { fqdn: string; via: string }) => a.fqdn === site.fqdn && a.via === 'group:operators'), 'bob reaches the protected site through the group');
}));

s.run();
