import * as assert from 'uvu/assert';
import type * as uvu from 'uvu';
// Browser tests: the bundle (server + client) built into a temp directory, run as a process on a
// fresh sandbox in development mode (admin without certificates), driven by Debian's chromium
// through playwright-core. Screenshots go to .artifacts/screenshots (git-ignored).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
// @ts-expect-error plain JS build script
import { bundle } from '../../build/build.mjs';
// @ts-expect-error plain JS build script
import { bundlePanel } from '../../build/panel.mjs';
import { freePorts } from '../infra/ports.ts';
import { startProcess, stopProcess, waitFor, type Managed } from '../infra/processes.ts';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const SCREENSHOTS = join(root, '.artifacts', 'screenshots');

export interface PanelServer {
  url: string;
  dir: string;
  /** A JSON request straight to the API; `headers` are the X-SSL-* of a certificate in production mode. */
  call<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

export interface PanelOptions {
  /** Production mode: callers are identified by the X-SSL-* headers nginx would send. Development otherwise. */
  production?: boolean;
  /** Configuration fields over the fresh sandbox's (FRESH onboarding, no domain). */
  config?: Record<string, unknown>;
  /** Store collections written before start, by name (`agents` -> data/agents.json). */
  data?: Record<string, unknown[]>;
}

/** The headers nginx sets for a verified client certificate. */
export function certificateHeaders(commonName: string, serial: string): Record<string, string> {
  return { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-dn': `CN=${commonName}`, 'x-ssl-client-serial': serial };
}

export async function startPanel(options: PanelOptions = {}): Promise<PanelServer> {
  const dir = await mkdtemp(join(tmpdir(), 'relay-browser-'));
  const outfile = join(dir, 'server.mjs');
  await bundle({ outfile, quiet: true });
  await bundlePanel({ outdir: join(dir, 'panel'), quiet: true });
  const [port] = await freePorts(1);
  await mkdir(join(dir, 'data'), { recursive: true });
  for (const [name, records] of Object.entries(options.data ?? {})) await writeFile(join(dir, 'data', `${name}.json`), JSON.stringify(records));
  await writeFile(join(dir, 'config.json'), JSON.stringify({
    ip: '127.0.0.1', domain: null, email: null, dataDir: join(dir, 'data'), staticDir: join(dir, 'panel'),
    onboarding: { status: 'FRESH' }, listen: { host: '127.0.0.1', port }, system: { driver: 'sandbox' }, ...options.config,
  }));
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  if (options.production) env.NODE_ENV = 'production';
  else delete env.NODE_ENV;
  const proc: Managed = startProcess('panel', process.execPath, [outfile, '--config', join(dir, 'config.json')], join(dir, 'panel.log'), env);
  const url = `http://127.0.0.1:${port}`;
  async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(url + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }
  await waitFor('panel', async () => (await call('GET', '/api/health')).status === 200, proc, 15_000);
  return {
    url, dir, call,
    async stop() {
      await stopProcess(proc);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Messages the page logged as errors, and uncaught exceptions: a test fails on any. */
  pageErrors: string[];
  close(): Promise<void>;
}

/** Chromium on a fresh profile; `headers` go with every request (the X-SSL-* nginx would add). */
export async function openBrowser(headers?: Record<string, string>): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'relay-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1200, height: 900 }, extraHTTPHeaders: headers,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return {
    context, page, pageErrors,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export interface AxeViolation { id: string; impact: string | null; help: string; nodes: number; targets: string[] }

/** axe-core, injected into the page: every violation, whatever its impact. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axe.source });
  return page.evaluate(async () => {
    const run = (window as unknown as { axe: typeof axe }).axe.run;
    const r = await run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact ?? null, help: v.help, nodes: v.nodes.length, targets: v.nodes.slice(0, 3).map((n) => String(n.target)) }));
  });
}

/**
 * Serious and critical violations only: for the states a test passes through on its way (a dialog
 * open, a form half filled). Every page at rest is held to all impacts by a11y-walk.test.ts.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Onboarding through the API (the wizard itself is tested in panel.test.ts): domain, DNS, provision, COMPLETED. */
export async function completeOnboarding(panel: PanelServer, domain = 'relay.example.com'): Promise<void> {
  const steps: [string, unknown?][] = [['/api/onboarding/domain', { domain, email: `ops@${domain}` }], ['/api/onboarding/verify-dns'], ['/api/onboarding/provision']];
  for (const [path, body] of steps) {
    const r = await panel.call('POST', path, body);
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
  }
  await waitFor('onboarding COMPLETED', async () => (await panel.call('GET', '/api/onboarding/status')).body.status === 'COMPLETED', null, 60_000);
}

/** Screenshot for the artifacts, then axe: a serious or critical violation fails the test. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  assert.equal(await seriousViolations(page), [], `axe on ${name}`);
}

/** The end of every browser suite: the browser first (it holds connections to the panel), then the panel. */
export async function closeBoth(browser: Browser | undefined, panel: PanelServer | undefined): Promise<void> {
  await browser?.close();
  await panel?.stop();
}

/**
 * The common life of a browser suite: an onboarded panel (`start`, a fresh sandbox unless given)
 * and a browser opened before its tests and closed after; no page error may escape a test.
 * `use` hears the two once they are up.
 */
export function onboardedSession(
  s: Pick<uvu.Test, 'before' | 'after'>,
  use: (panel: PanelServer, browser: Browser) => void,
  start: () => Promise<PanelServer> = () => startPanel(),
): void {
  let panel: PanelServer | undefined;
  let browser: Browser | undefined;
  s.before(async () => {
    panel = await start();
    await completeOnboarding(panel);
    browser = await openBrowser();
    use(panel, browser);
  });
  s.after(() => closeBoth(browser, panel));
  s.after.each(() => {
    assert.equal(browser?.pageErrors, [], 'no uncaught error in the page');
  });
}

/**
 * The name of what has focus (its aria-label, else its text or, `byTag`, its tag name), once it is
 * `want`; if it never is, after 15 s: the caller's assertion then says what it is.
 */
export async function focusedName(page: Page, want: string, { byTag = false } = {}): Promise<string | null | undefined> {
  const nameOf = ([tag]: [boolean]) => {
    const el = document.activeElement;
    return el?.getAttribute('aria-label') ?? (tag ? el?.tagName : el?.textContent);
  };
  await page.waitForFunction(([tag, wanted]) => {
    const el = document.activeElement;
    return (el?.getAttribute('aria-label') ?? (tag ? el?.tagName : el?.textContent)) === wanted;
  }, [byTag, want] as const, { timeout: 15_000 }).catch(() => undefined);
  return page.evaluate(nameOf, [byTag] as [boolean]);
}
