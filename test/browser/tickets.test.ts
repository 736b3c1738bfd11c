// The tickets page against the real tickets API, in production mode: the browser sends the admin
// certificate's X-SSL-* headers (as nginx would), the agents theirs. An instance, an assignment
// made in the page, a ticket revoked in the page and a session killed in the page.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { timed } from '../helpers/timeout.ts';
import { certificateHeaders, openBrowser, screenshot, seriousViolations, startPanel, type Browser, type PanelServer, closeBoth } from './harness.ts';

const ADMIN = certificateHeaders('admin', '01');
const NAS = certificateHeaders('agent:nas', '2001');
const LAPTOP = certificateHeaders('agent:laptop', '2002');
const agent = (label: string, serial: string) => ({ label, serial, capabilities: ['backup:run'], allowedSites: [], createdAt: new Date().toISOString(), expiresAt: null, revokedAt: null });

const s = suite('browser: tickets page on the real tickets API (production mode, chromium)');
let panel: PanelServer;
let browser: Browser;
let instance: { instanceId: string; instanceScope: string };

s.before(async () => {
  panel = await startPanel({
    production: true,
    config: { domain: 'relay.example.com', email: 'ops@example.com', onboarding: { status: 'COMPLETED' } },
    data: { agents: [agent('nas', '2001'), agent('laptop', '2002')] },
  });
  browser = await openBrowser(ADMIN);
  const scope = await panel.call('POST', '/api/tickets/scopes', {
    name: 'backup', version: '1.0.0', description: 'Backups between agents',
    scopes: [{ name: 'backup:run', description: 'Run a backup', instanceScoped: true }],
    transport: { strategies: ['tunnel'], preferred: 'tunnel', port: 0, protocol: 'wss' },
  }, ADMIN);
  assert.is(scope.status, 201, JSON.stringify(scope.body));
  const registered = await panel.call('POST', '/api/tickets/instances', { scope: 'backup:run', transport: { strategies: ['tunnel'] } }, NAS);
  assert.is(registered.status, 201, JSON.stringify(registered.body));
  instance = registered.body;
});

s.after(() => closeBoth(browser, panel));

s.after.each(async () => {
  await browser.page.unrouteAll();
  assert.equal(browser.pageErrors, [], 'no uncaught error in the page');
});

s('without a client certificate the page shows the server\'s message, never a stack', timed(30_000, async () => {
  const { page } = browser;
  await page.route('**/api/**', (route) => {
    const headers = { ...route.request().headers() };
    for (const name of Object.keys(headers)) if (name.startsWith('x-ssl-')) delete headers[name];
    return route.continue({ headers });
  });
  await page.goto(`${panel.url}/tickets`);
  await page.getByText('mTLS certificate required').waitFor();
  assert.not.match(await page.locator('body').innerText(), /\bat .*:\d+:\d+|Error:/);
}));

s('an instance is listed; an assignment made in the page lets the owner request tickets for the assignee', timed(30_000, async () => {
  const { page } = browser;
  await page.goto(`${panel.url}/tickets`);
  const row = page.getByRole('row', { name: new RegExp(instance.instanceScope) }).first();
  await row.waitFor();
  assert.match(await row.innerText(), /nas[\s\S]*active/);
  // Before the assignment the owner cannot issue a ticket to laptop (generic 404).
  const refused = await panel.call('POST', '/api/tickets', { scope: 'backup:run', instanceId: instance.instanceId, target: 'laptop' }, NAS);
  assert.is(refused.status, 404);

  await page.getByLabel('Agent label').fill('laptop');
  await page.getByLabel('Instance', { exact: true }).selectOption(instance.instanceScope);
  await page.getByRole('button', { name: 'Assign' }).click();
  await page.getByRole('button', { name: 'Remove assignment of laptop' }).waitFor();
  const listed = await panel.call('GET', '/api/tickets/assignments', undefined, ADMIN);
  assert.equal(listed.body.assignments.map((a: { agentLabel: string; instanceScope: string; assignedBy: string }) => [a.agentLabel, a.instanceScope, a.assignedBy]), [['laptop', instance.instanceScope, 'admin']]);
  const ticket = await panel.call('POST', '/api/tickets', { scope: 'backup:run', instanceId: instance.instanceId, target: 'laptop' }, NAS);
  assert.is(ticket.status, 201);
}));

s('a session is killed and a ticket revoked from the page; both show up live', timed(60_000, async () => {
  const { page } = browser;
  const tickets = (await panel.call('GET', '/api/tickets', undefined, ADMIN)).body.tickets as { id: string }[];
  const used = tickets[0]!.id;
  assert.is((await panel.call('POST', '/api/tickets/validate', { ticketId: used }, LAPTOP)).status, 200);
  const session = await panel.call('POST', '/api/tickets/sessions', { ticketId: used }, LAPTOP);
  assert.is(session.status, 201);
  const spare = await panel.call('POST', '/api/tickets', { scope: 'backup:run', instanceId: instance.instanceId, target: 'laptop' }, NAS);
  assert.is(spare.status, 201);

  // Made after the page loaded: the 5 s refresh brings them in.
  const killButton = page.getByRole('button', { name: `Kill session ${session.body.session.sessionId.slice(0, 12)}` });
  await killButton.waitFor({ timeout: 30_000 });
  await killButton.click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, continue' }).click();
  await page.getByText('(admin_killed)').waitFor();
  const heartbeat = await panel.call('POST', `/api/tickets/sessions/${session.body.session.sessionId}/heartbeat`, undefined, LAPTOP);
  assert.equal(heartbeat.body, { authorized: false, reason: 'admin_killed' });

  const revokeButton = page.getByRole('button', { name: `Revoke ticket ${spare.body.ticket.id.slice(0, 12)}` });
  await revokeButton.click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, continue' }).click();
  await revokeButton.waitFor({ state: 'detached' });
  const after = (await panel.call('GET', '/api/tickets', undefined, ADMIN)).body.tickets.find((t: { id: string }) => t.id === spare.body.ticket.id);
  assert.ok(after.revokedAt);
  await screenshot(page, 'tickets-live');
  assert.equal(await seriousViolations(page), []);
}));

s('removing the assignment from the page asks first', timed(30_000, async () => {
  const { page } = browser;
  await page.getByRole('button', { name: 'Remove assignment of laptop' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, continue' }).click();
  await page.getByText('No assignments.').waitFor();
  assert.equal((await panel.call('GET', '/api/tickets/assignments', undefined, ADMIN)).body.assignments, []);
}));

s.run();
