import { existsSync, readdirSync } from 'node:fs';
import { suite, type Test } from 'uvu';
import { dirname } from 'node:path';
import { createTestApp, type Caller, type TestApp, type TestAppOptions } from '../../../lib/testing.ts';
import { sandboxControls, type SandboxControls } from '../../../lib/system/sandbox-system.ts';
import type { VhostState } from '../../../lib/system/types.ts';

export const DOMAIN = 'example.test';

export interface SiteTestApp extends TestApp {
  sandbox: SandboxControls;
}

/** A sandbox app after onboarding (domain example.test, host ip 203.0.113.10). */
export async function siteApp(options?: TestAppOptions): Promise<SiteTestApp> {
  const t = await createTestApp(options);
  await t.completeOnboarding(DOMAIN);
  return Object.assign(t, { sandbox: sandboxControls(t.services.system) });
}

/** A suite whose every test gets a fresh siteApp (closed after it); `extra` goes into each test's context after the app. */
export function siteSuite<C extends object = {}>(title: string, extra?: (t: SiteTestApp) => Promise<C>): Test<{ t: SiteTestApp } & C> {
  const s = suite<{ t: SiteTestApp } & C>(title, {} as { t: SiteTestApp } & C);
  s.before.each(async (ctx) => {
    ctx.t = await siteApp();
    if (extra) Object.assign(ctx, await extra(ctx.t));
  });
  s.after.each(async (ctx) => {
    await ctx.t.close();
  });
  return s;
}

export function createSite(t: TestApp, body: Record<string, unknown>, as: Parameters<TestApp['call']>[2] = {}) {
  return t.call('POST', '/api/sites', { ...as, body });
}

export async function managedSite(t: TestApp, name: string, extra: Record<string, unknown> = {}) {
  const res = await createSite(t, { name, type: 'managed', ...extra });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.site as { id: string; name: string; fqdn: string; rootPath: string };
}

export function siteVhostState(t: TestApp, fqdn: string): Promise<VhostState> {
  const { proxy } = t.services.system;
  return proxy.state(proxy.vhostName({ kind: 'site', fqdn, root: '/x', spaMode: false, protected: false }));
}

/** The site directories that exist under the sites root. */
export function siteDirectories(t: TestApp): string[] {
  const root = dirname(t.services.system.siteStorage.dirOf('00000000-0000-4000-8000-000000000000'));
  return existsSync(root) ? readdirSync(root) : [];
}

/** POST /api/sites/:id/files through the app: one multipart `file` part per entry (name -> content). */
export async function uploadFiles(t: TestApp, id: string, files: Record<string, string>, dir?: string, as: Caller = 'admin') {
  const form = new FormData();
  for (const [name, content] of Object.entries(files)) form.append('file', new Blob([content]), name);
  const query = dir === undefined ? '' : `?path=${encodeURIComponent(dir)}`;
  const response = await t.app.fetch(new Request(`http://panel.test/api/sites/${id}/files${query}`, { method: 'POST', body: form, headers: t.headers(as) }));
  return { status: response.status, body: await response.json() };
}

/** Portal users with these names, written straight into the users database (a site's allowed users must exist). */
export async function seedPortalUsers(t: TestApp, ...names: string[]): Promise<void> {
  const { authPortal } = t.services.system;
  const users = [...(await authPortal.readUsers())];
  // a well-formed cost-4 bcrypt hash that no password matches: these users never sign in
  for (const username of names) users.push({ username, displayname: username, email: `${username}@example.test`, groups: [], password: `$2b$04$${'x'.repeat(53)}` });
  await authPortal.writeUsers(users);
}
