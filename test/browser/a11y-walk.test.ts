// Every page of the panel, with content, held to axe-core with no violation of any impact, at a
// desktop and a phone width, in light and in dark mode; and not one console error on the way
//. The routes are read from PAGES in panel/src/app.tsx, so a page added there is walked
// without a change here. Also: the agent editor and the service log open in view with focus
// inside, and give focus back to the button that opened them.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { timed } from '../helpers/timeout.ts';
import { axeViolations, closeBoth, focusedName, openBrowser, screenshot, startPanel, type AxeViolation, type Browser, type PanelServer } from './harness.ts';

const s = suite('browser: axe on every page, both widths, both colour schemes; no console error; focus of the agent editor and the log viewer (chromium)');
let panel: PanelServer;
let browser: Browser;
/** Console errors and uncaught exceptions of the whole run, with the address they happened on. */
const consoleErrors: string[] = [];

const PLUGIN = {
  name: 'hello', displayName: 'Hello', packageName: '@relay/hello', version: '1.0.0', description: 'Says hello',
  capabilities: [], spec: 'file:/nowhere/hello-1.0.0.tgz', status: 'disabled', installedAt: '2026-01-01T00:00:00.000Z', enabledAt: null,
};

s.before(async () => {
  // a disabled plugin's record: its page renders without the plugin's code (installing it costs an npm run)
  panel = await startPanel({ data: { plugins: [PLUGIN] } });
  browser = await openBrowser();
  browser.page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(`${browser.page.url()}: ${message.text()}`); });
  browser.page.on('pageerror', (error) => consoleErrors.push(`${browser.page.url()}: ${error.message}`));
});

s.after(() => closeBoth(browser, panel));

/** The paths of PAGES in panel/src/app.tsx, read from its source. */
async function pagePaths(): Promise<string[]> {
  const source = await readFile(resolve(fileURLToPath(new URL('../../panel/src/app.tsx', import.meta.url))), 'utf8');
  const block = /const PAGES[^{]*\{([\s\S]*?)\n\};/.exec(source)?.[1];
  assert.ok(block, 'PAGES found in panel/src/app.tsx');
  return [...block.matchAll(/^\s*'(\/[^']*)':/gm)].map((m) => m[1]!);
}

const PASSES = [
  { name: '1280 light', width: 1280, height: 900, colorScheme: 'light' },
  { name: '1280 dark', width: 1280, height: 900, colorScheme: 'dark' },
  { name: '390 light', width: 390, height: 844, colorScheme: 'light' },
  { name: '390 dark', width: 390, height: 844, colorScheme: 'dark' },
] as const;

/** One line per violation: where, in which pass, the rule, its impact and the first elements. */
type Finding = string;
const line = (where: string, pass: string, v: AxeViolation) => `${where} (${pass}): ${v.id} [${v.impact}] ${v.nodes}× ${v.targets.join(' | ')}`;

/** axe on what the page shows now, in each of the four passes; the page is not reloaded between them. */
async function fourPasses(where: string, findings: Finding[]): Promise<void> {
  const { page } = browser;
  for (const pass of PASSES) {
    await page.setViewportSize({ width: pass.width, height: pass.height });
    await page.emulateMedia({ colorScheme: pass.colorScheme });
    // what follows the window's size (ResizeObserver) runs before the next frame is drawn
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const violations = await axeViolations(page);
    const looks = await page.evaluate(() => ({ background: getComputedStyle(document.body).backgroundColor, wider: document.documentElement.scrollWidth > innerWidth }));
    // an opaque rgb() with every channel low: the pass is really dark, not light again
    const dark = /^rgb\((\d+), (\d+), (\d+)\)$/.exec(looks.background)?.slice(1).every((c) => Number(c) < 64) ?? false;
    if (dark !== (pass.colorScheme === 'dark')) findings.push(`${where} (${pass.name}): the body's background is ${looks.background}`);
    // a phone scrolls tables inside their own box, never the page sideways
    if (looks.wider) findings.push(`${where} (${pass.name}): the page is wider than the window`);
    if (violations.length) {
      findings.push(...violations.map((v) => line(where, pass.name, v)));
      await screenshot(page, `a11y${where.replace(/\W+/g, '-')}-${pass.name.replace(' ', '-')}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * Opens `path` inside the app, as a click on one of its links does (axe, injected once, stays), and
 * waits until the new page's heading is there and nothing says Loading.
 */
async function open(path: string): Promise<void> {
  const { page } = browser;
  await page.evaluate((to) => {
    if (location.pathname === to) return;
    document.querySelector('h1')?.setAttribute('data-left', '');
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
  await page.waitForFunction(() => {
    const heading = document.querySelector('h1');
    return heading && !heading.hasAttribute('data-left') && ![...document.querySelectorAll('[role=status]')].some((e) => e.textContent?.includes('Loading'));
  });
}

s('the onboarding wizard, then every page with content: no axe violation of any impact in four passes, no console error', timed(150_000, async () => {
  const { page } = browser;
  const findings: Finding[] = [];
  await page.goto(panel.url);
  await page.getByRole('heading', { name: 'Set up this relay' }).waitFor();
  await fourPasses('onboarding domain', findings);
  await page.getByLabel('Domain').fill('relay.example.com');
  await page.getByLabel('Email').fill('ops@example.com');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('button', { name: 'Check DNS' }).click();
  await page.locator('table', { hasText: 'Wildcard' }).waitFor();
  await fourPasses('onboarding DNS', findings);
  await page.getByRole('button', { name: 'Continue to provisioning' }).click();
  await page.getByRole('button', { name: 'Start provisioning' }).click();
  await page.getByRole('heading', { name: 'Provisioning complete' }).waitFor({ timeout: 60_000 });
  await fourPasses('onboarding complete', findings);
  await page.getByRole('button', { name: /open the panel/ }).click();
  await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();

  // content on every page: its tables are walked full, not empty
  const seeded: [string, unknown][] = [
    ['/api/tunnels', { subdomain: 'grafana', port: 3000, description: 'dashboards' }],
    ['/api/sites', { name: 'docs', type: 'managed' }],
    ['/api/users', { username: 'alice', displayname: 'Alice', email: 'alice@example.com', password: 'alice-password-1' }],
    ['/api/certs/agent', { label: 'laptop-1', capabilities: ['tunnels:read'] }],
  ];
  for (const [path, body] of seeded) {
    const made = await panel.call('POST', path, body);
    assert.ok(made.status < 300, `${path}: ${made.status} ${JSON.stringify(made.body)}`);
  }
  const invitation = await panel.call('POST', '/api/invitations', { username: 'bob', email: 'bob@example.com', displayname: 'Bob' });
  assert.is(invitation.status, 201, JSON.stringify(invitation.body));

  const paths = [...await pagePaths(), `/plugins/${PLUGIN.name}`, '/no-such-page', `/invite/${invitation.body.token}`];
  assert.ok(paths.includes('/certs') && paths.includes('/settings'), String(paths));
  for (const path of paths) {
    await open(path);
    await fourPasses(path, findings);
  }
  const problems = [...findings, ...consoleErrors.map((e) => `console: ${e}`)];
  assert.ok(problems.length === 0, `no axe violation on any page in any pass, no console error, no uncaught exception:\n${problems.join('\n')}`);
}));

/** Waits until focus is inside the element labelled by `id` (the opened panel), or fails saying so. */
async function focusInside(id: string, what: string): Promise<void> {
  await browser.page.waitForFunction((labelledBy) => !!document.activeElement?.closest(`[aria-labelledby="${labelledBy}"]`), id, { timeout: 5_000 })
    .catch(() => assert.unreachable(`focus inside ${what} when it opens`));
}

/** Whether the heading named `name` is inside the window, top to bottom. */
async function inView(name: string): Promise<string | true> {
  const box = await browser.page.getByRole('heading', { name }).boundingBox();
  // scrollIntoView may leave it a fraction of a pixel above the top
  return box && box.y > -1 && box.y + box.height <= HEIGHT ? true : `the heading "${name}" is at y=${box?.y}, outside the ${HEIGHT} px window`;
}
/** A short window: what opens below a table is out of view unless it is brought there. */
const HEIGHT = 500;

s('the agent editor and the service log open in view with focus inside, and give focus back to their button on close', timed(40_000, async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: HEIGHT });
  try {
    await open('/certs');
    await page.getByRole('button', { name: 'Edit laptop-1' }).click();
    await focusInside('edit-agent', 'the agent editor');
    assert.is(await inView('Edit laptop-1'), true);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Edit laptop-1' }).waitFor({ state: 'detached' });
    assert.is(await focusedName(browser.page, 'Edit laptop-1'), 'Edit laptop-1', 'focus back on the Edit button after Cancel');
    // saved, the editor closes too: focus goes back the same way
    await page.getByRole('button', { name: 'Edit laptop-1' }).click();
    await page.getByRole('form', { name: 'Edit laptop-1' }).getByLabel('system:read', { exact: true }).check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { name: 'Edit laptop-1' }).waitFor({ state: 'detached' });
    assert.is(await focusedName(browser.page, 'Edit laptop-1'), 'Edit laptop-1', 'focus back on the Edit button after Save');

    await open('/services');
    await page.getByRole('button', { name: 'Log of proxy' }).click();
    await focusInside('log-title', 'the log viewer');
    assert.is(await inView('Logs of proxy'), true);
    await page.getByRole('button', { name: 'Close logs' }).click();
    await page.getByRole('heading', { name: 'Logs of proxy' }).waitFor({ state: 'detached' });
    assert.is(await focusedName(browser.page, 'Log of proxy'), 'Log of proxy', 'focus back on the Log button');
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
}));

s.run();
