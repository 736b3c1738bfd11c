// The alerts page on the real API (chromium): a webhook added with a secret made by the panel, a
// refused URL shown at its field, a loopback URL refused until private targets are allowed (with the
// page's warning), a test alert sent to a receiver on loopback and checked with the secret the page
// showed, and the delivery log showing it delivered with the receiver's 200.
import type { Response as PageResponse } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { timed } from '../helpers/timeout.ts';
import { expectedSignature, startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { closeBoth, completeOnboarding, expectAccessible, openBrowser, startPanel, type Browser, type PanelServer } from './harness.ts';

const s = suite('browser: the alerts page, its webhooks and delivery log (chromium)');
let panel: PanelServer;
let browser: Browser;
let receiver: WebhookReceiver;

s.before(async () => {
  panel = await startPanel();
  await completeOnboarding(panel);
  browser = await openBrowser();
  receiver = await startReceiver();
});
s.after(async () => {
  await closeBoth(browser, panel);
  await receiver?.close();
});
s.after.each(() => {
  assert.equal(browser.pageErrors, [], 'no uncaught error in the page');
});

s('add a webhook, send a test alert, see it delivered in the log', timed(90_000, async () => {
  const { page } = browser;
  await page.goto(`${panel.url}/alerts`);
  await page.getByRole('heading', { name: 'New webhook' }).waitFor();
  await expectAccessible(page, 'alerts-empty');

  await page.getByLabel('URL').fill('ftp://example.test/hook');
  await page.getByRole('button', { name: 'Add webhook' }).click();
  await page.getByText('url must be an http or https URL without credentials').waitFor();

  await page.getByLabel('URL').fill(receiver.url);
  await page.getByRole('button', { name: 'Add webhook' }).click();
  await page.getByText('url points at a loopback address (127.0.0.1), and private targets are off').waitFor();
  await page.getByLabel('Allow private targets').check();
  await page.getByRole('button', { name: 'Save private-targets setting' }).click();
  await page.getByText('Private targets are allowed: whoever can add a webhook').waitFor();
  assert.equal((await panel.call('GET', '/api/alerts/settings')).body, { allowPrivateTargets: true });

  await page.getByLabel('Disk under 10 % free').uncheck();
  await page.getByRole('button', { name: 'Add webhook' }).click();
  const secret = await page.getByLabel('Webhook secret', { exact: true }).innerText();
  assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
  const row = page.locator('section[aria-labelledby="webhooks-title"] tbody tr');
  await row.filter({ hasText: receiver.url }).waitFor();
  assert.not.match(await row.innerText(), 'Disk under 10 % free');
  const listed = (await panel.call<{ webhooks: { events: string[] }[] }>('GET', '/api/alerts/webhooks')).body.webhooks;
  assert.is(listed.length, 1);
  assert.not.ok(listed[0]!.events.includes('disk.low'));

  // what the page asked, in order: the log must be read again between the test's answer and its toast
  const asked: string[] = [];
  const note = (r: PageResponse) => void asked.push(`${r.request().method()} ${new URL(r.url()).pathname}`);
  page.on('response', note);
  await page.getByRole('button', { name: `Send test alert to ${receiver.url}` }).click();
  await receiver.waitFor(1);
  const [got] = receiver.received;
  assert.is(got!.json.event, 'test');
  assert.is(got!.headers['x-relay-signature'], expectedSignature(secret, got!.body), 'signed with the secret the page showed');

  // The outcome once the server answered (it answers once the attempt ended): a toast, and the log
  // read again by the action itself, not left to its next refresh
  await page.getByRole('status').getByText(`Test alert delivered to ${receiver.url}: HTTP 200.`).waitFor();
  page.off('response', note);
  const answer = asked.findLastIndex((line) => line.startsWith('POST ') && line.endsWith('/test'));
  assert.ok(answer >= 0 && asked.slice(answer + 1).includes('GET /api/alerts/deliveries'), `the log was not read again after the answer: ${asked.join(', ')}`);
  const delivered = page.locator('section[aria-labelledby="deliveries-title"] tbody tr').filter({ hasText: 'delivered' });
  await delivered.waitFor();
  assert.match(await delivered.innerText(), /test[\s\S]*delivered[\s\S]*200/);
  await expectAccessible(page, 'alerts-delivered');

  await page.getByRole('button', { name: `Disable ${receiver.url}` }).click();
  await row.filter({ hasText: 'disabled' }).waitFor();
  assert.is((await panel.call<{ webhooks: { enabled: boolean }[] }>('GET', '/api/alerts/webhooks')).body.webhooks[0]!.enabled, false);
}));

s.run();
