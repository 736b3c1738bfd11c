// The plugins page against the real API: the hello fixture packed with npm pack,
// installed through the page with its file: spec, enabled, its panel.js rendered in its own page,
// disabled (page and routes gone), deleted; on a fresh sandbox in development mode.
import { rm } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startNpmRegistry } from '../helpers/npm-registry.ts';
import { packFixtures } from '../helpers/plugins.ts';
import { timed } from '../helpers/timeout.ts';
import { completeOnboarding, openBrowser, startPanel, type Browser, type PanelServer, expectAccessible as expectAccessibleOn, closeBoth } from './harness.ts';

const s = suite('browser: the plugins page on the real plugins API (chromium)');
let packed: Awaited<ReturnType<typeof packFixtures>>;
let panel: PanelServer;
let browser: Browser;
let registry: Awaited<ReturnType<typeof startNpmRegistry>>;
const registryBefore = process.env.npm_config_registry;

s.before(async () => {
  packed = await packFixtures('hello');
  // registry installs go to this loopback registry: the panel's npm inherits the variable
  registry = await startNpmRegistry([{ name: '@relay-test/hello', version: '1.2.3', tarball: packed.specs.hello!.slice('file:'.length) }]);
  process.env.npm_config_registry = registry.url;
  panel = await startPanel({ config: { plugins: { allowedScopes: [], localDir: packed.dir } } });
  await completeOnboarding(panel);
  browser = await openBrowser();
});

s.after(async () => {
  await closeBoth(browser, panel);
  await registry?.close();
  // the lane's later files run in this process
  if (registryBefore === undefined) delete process.env.npm_config_registry;
  else process.env.npm_config_registry = registryBefore;
  if (packed) await rm(packed.dir, { recursive: true, force: true });
});

s.after.each(() => {
  assert.equal(browser.pageErrors, [], 'no uncaught error in the page');
});

const expectAccessible = (name: string) => expectAccessibleOn(browser.page, name);

const status = async () => (await panel.call('GET', '/api/plugins')).body.plugins.map((p: { name: string; status: string }) => `${p.name}:${p.status}`);

s('install hello by its file: spec, enable it, see its panel.js in its own page, disable, delete', timed(120_000, async () => {
  const { page } = browser;
  await page.goto(`${panel.url}/plugins`);
  await page.getByRole('heading', { level: 1, name: 'Plugins' }).waitFor();
  await page.getByText('No plugins installed.').waitFor();
  await expectAccessible('plugins-empty');

  await page.getByLabel('Package').fill(packed.specs.hello!);
  await page.getByRole('button', { name: 'Install' }).click();
  const row = page.getByRole('row', { name: /^Hello / });
  await row.waitFor({ timeout: 60_000 });
  assert.match(await row.innerText(), /1\.2\.3[\s\S]*hello:read[\s\S]*disabled/);
  assert.is(await page.getByLabel('Package').inputValue(), '', 'the field is cleared after installing');
  assert.equal(await status(), ['hello:disabled']);
  assert.is(await row.getByRole('link').count(), 0, 'no page link while disabled');

  await page.getByRole('button', { name: 'Enable hello' }).click();
  await page.getByRole('button', { name: 'Disable hello' }).waitFor();
  assert.equal(await status(), ['hello:enabled']);
  await expectAccessible('plugins-enabled');

  await page.getByRole('link', { name: 'Hello' }).click();
  await page.getByRole('heading', { level: 1, name: 'Plugin: Hello' }).waitFor();
  const served = await (await fetch(`${panel.url}/api/hello/panel.js`)).text();
  const rendered = /textContent = '([^']+)'/.exec(served)?.[1];
  assert.ok(rendered, 'the fixture panel.js sets a text');
  await page.locator('.plugin-host').getByText(rendered!).waitFor();
  await expectAccessible('plugin-hello');

  await page.getByRole('link', { name: 'Plugins' }).click();
  await page.getByRole('button', { name: 'Disable hello' }).click();
  await page.getByRole('button', { name: 'Enable hello' }).waitFor();
  assert.equal(await status(), ['hello:disabled']);
  assert.is((await panel.call('GET', '/api/hello/greet')).status, 404, 'its routes are unmounted');
  assert.is((await fetch(`${panel.url}/api/hello/panel.js`)).status, 404, 'its bundle is gone');
  await page.goto(`${panel.url}/plugins/hello`);
  await page.getByText('The plugin hello is disabled').waitFor();
  assert.is(await page.locator('.plugin-host').count(), 0, 'no panel mounted for a disabled plugin');

  await page.goto(`${panel.url}/plugins`);
  await page.getByRole('button', { name: 'Delete hello' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, continue' }).click();
  await page.getByText('No plugins installed.').waitFor();
  assert.equal(await status(), []);
  await page.goto(`${panel.url}/plugins/hello`);
  await page.getByText("Plugin 'hello' not found").waitFor();
}));

s('a refused spec shows the server\'s message and installs nothing', timed(30_000, async () => {
  const { page } = browser;
  await page.goto(`${panel.url}/plugins`);
  await page.getByLabel('Package').fill('file:relative.tgz');
  await page.getByRole('button', { name: 'Install' }).click();
  await page.getByText('A file: plugin spec must be an absolute path to a .tgz tarball').waitFor();
  assert.equal(await status(), []);
}));

s('an install refused for its scope offers to allow it; once allowed (confirmed), the registry install succeeds', timed(90_000, async () => {
  const { page } = browser;
  await page.goto(`${panel.url}/plugins`);
  await page.getByRole('heading', { name: 'Allowed scopes' }).waitFor();
  await page.getByText('No scope is allowed').waitFor();
  await page.getByText('runs its code in the panel\'s process').first().waitFor();
  await page.getByLabel('Package').fill('@relay-test/hello');
  await page.getByRole('button', { name: 'Install' }).click();
  await page.getByText('Scope @relay-test is not in plugins.allowedScopes').waitFor();

  await page.getByRole('button', { name: 'Allow @relay-test' }).click();
  const dialog = page.getByRole('dialog');
  assert.match(await dialog.innerText(), /Allow packages published under @relay-test[\s\S]*only scopes you trust/);
  await dialog.getByRole('button', { name: 'Yes, continue' }).click();
  await page.locator('#plugin-scopes').getByText('@relay-test', { exact: true }).waitFor();
  assert.equal((await panel.call('GET', '/api/plugins/settings')).body, { allowedScopes: ['@relay-test'] });
  await expectAccessible('plugins-scopes');

  await page.getByRole('button', { name: 'Install' }).click();
  await page.getByRole('row', { name: /^Hello / }).waitFor({ timeout: 60_000 });
  assert.equal(await status(), ['hello:disabled']);
  assert.equal((await panel.call('GET', '/api/plugins/hello')).body.spec, '@relay-test/hello', 'installed from the registry');

  await page.getByRole('button', { name: 'Remove @relay-test' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes, continue' }).click();
  await page.getByText('No scope is allowed').waitFor();
  assert.equal((await panel.call('GET', '/api/plugins/settings')).body, { allowedScopes: [] });
}));

s.run();
