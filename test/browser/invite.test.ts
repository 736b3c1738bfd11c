// The public invitation page in production mode: the invitee's browser sends no client
// certificate headers, the admin (through the API) sends those nginx would.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { timed } from '../helpers/timeout.ts';
import { certificateHeaders, openBrowser, screenshot, seriousViolations, startPanel, type Browser, type PanelServer, closeBoth } from './harness.ts';

const ADMIN = certificateHeaders('admin', '01');

const s = suite('browser: the invitation page without a client certificate (production mode, chromium)');
let panel: PanelServer;
let browser: Browser;

s.before(async () => {
  panel = await startPanel({
    production: true,
    config: { domain: 'relay.example.com', email: 'ops@example.com', onboarding: { status: 'COMPLETED' } },
  });
  browser = await openBrowser();
});

s.after(() => closeBoth(browser, panel));

s.after.each(() => {
  assert.equal(browser.pageErrors, [], 'no uncaught error in the page');
});

s('an invitee opens the link, sets a password and gets the TOTP enrollment; admin routes stay closed to them', timed(60_000, async () => {
  const { page } = browser;
  const made = await panel.call('POST', '/api/invitations', { username: 'bob', email: 'bob@example.com', displayname: 'Bob' }, ADMIN);
  assert.is(made.status, 201, JSON.stringify(made.body));
  assert.is((await panel.call('GET', '/api/users')).status, 403, 'no certificate, no admin API');

  await page.goto(`${panel.url}/invite/${made.body.token}`);
  await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
  assert.match(await page.locator('main').innerText(), /bob[\s\S]*bob@example\.com/);
  await screenshot(page, 'invite');
  assert.equal(await seriousViolations(page), [], 'axe on the invitation page');

  await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
  await page.getByLabel('Repeat the password').fill('correct horse battery!');
  await page.getByRole('button', { name: 'Create my account' }).click();
  await page.getByText('The two passwords differ').waitFor();

  await page.getByLabel('Password', { exact: true }).fill('short');
  await page.getByLabel('Repeat the password').fill('short');
  await page.getByRole('button', { name: 'Create my account' }).click();
  await page.getByText('Password must be at least 8 characters').waitFor();

  await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
  await page.getByLabel('Repeat the password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Create my account' }).click();
  await page.getByRole('heading', { name: 'Welcome, bob' }).waitFor();
  await page.getByRole('img', { name: 'TOTP QR code' }).waitFor();
  assert.match(await page.getByLabel('TOTP URI').innerText(), /^otpauth:\/\/totp\/.+:bob\?secret=[A-Z2-7]+&/);
  await screenshot(page, 'invite-accepted');

  const users = await panel.call('GET', '/api/users', undefined, ADMIN);
  assert.ok(users.body.users.some((u: { username: string }) => u.username === 'bob'));
  const invitations = await panel.call('GET', '/api/invitations', undefined, ADMIN);
  assert.is(invitations.body.invitations[0].status, 'accepted');
}));

s('a used, unknown or malformed link says so, without a certificate', timed(30_000, async () => {
  const { page } = browser;
  await page.goto(`${panel.url}/invite/${'ab'.repeat(32)}`);
  await page.getByRole('heading', { name: 'Invitation' }).waitFor();
  const refusal = (await panel.call('GET', `/api/invite/${'ab'.repeat(32)}`)).body.error;
  assert.type(refusal, 'string');
  await page.getByRole('alert').getByText(refusal).waitFor();
  // not a token at all: the API's 400 Validation failed would mean nothing to an invitee
  await page.goto(`${panel.url}/invite/not-a-token`);
  await page.getByRole('alert').getByText('This invitation link is not valid').waitFor();
}));

s.run();
