import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { issueTwoFactorSession, TWO_FACTOR_COOKIE, TWO_FACTOR_SESSION_MS, twoFactorCookieHeader, twoFactorSessionKey } from '../../../lib/auth/two-factor-session.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { defined } from '../../helpers/defined.ts';
import { testRoutes } from './test-routes.ts';

const allRoutes = [...routes, ...testRoutes];
const s = suite<{ t: TestApp }>('request pipeline', {} as { t: TestApp });

s.before.each(async (ctx) => {
  ctx.t = await createTestApp({ routes: allRoutes });
});
s.after.each(async (ctx) => {
  await ctx.t.close();
});

// ---- health and unknown paths ----

s('/api/health answers 200 without a certificate, before onboarding, with 2FA on', async ({ t }) => {
  await t.services.config.update({ panel2fa: { enabled: true, secret: 'JBSWY3DPEHPK3PXP', setupComplete: true } });
  const { status, body } = await t.call('GET', '/api/health', { as: 'none' });
  assert.is(status, 200);
  assert.equal(body, { status: 'ok' });
});

s('unknown /api paths answer 404 {error: "Not found"}, whatever the method or certificate', async ({ t }) => {
  for (const [method, path] of [['GET', '/api/nope'], ['GET', '/api'], ['DELETE', '/api/health'], ['POST', '/api/tunnels/x/y/z']] as const) {
    const { status, body } = await t.call(method, path, { as: 'none' });
    assert.is(status, 404, `${method} ${path}`);
    assert.equal(body, { error: 'Not found' });
  }
});

s('other unknown paths get the built-in entry document when there is no staticDir, whatever the method', async ({ t }) => {
  for (const method of ['GET', 'POST', 'DELETE'] as const) {
    const response = await t.request(method, '/tunnels/some/client/route', { as: 'none' });
    assert.is(response.status, 200, method);
    assert.match(response.headers.get('content-type') ?? '', 'text/html');
    assert.match(await response.text(), 'relay-panel');
  }
});

s("other unknown paths get staticDir's index.html; bundle files are served; traversal and dotfiles are not", async ({ t }) => {
  const staticDir = join(t.dir, 'client');
  await mkdir(join(staticDir, 'assets'), { recursive: true });
  await writeFile(join(staticDir, 'index.html'), '<html>client entry</html>');
  await writeFile(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  await writeFile(join(staticDir, '.env'), 'SECRET=1');
  await writeFile(join(t.dir, 'outside.txt'), 'outside');
  await t.services.config.update({ staticDir });
  assert.is(await (await t.request('GET', '/sites/123', { as: 'none' })).text(), '<html>client entry</html>');
  // another method gets the entry document, never a file of the client
  assert.is(await (await t.request('POST', '/assets/app.js', { as: 'none' })).text(), '<html>client entry</html>');
  const asset = await t.request('GET', '/assets/app.js', { as: 'none' });
  assert.is(await asset.text(), 'console.log(1)');
  assert.match(asset.headers.get('content-type') ?? '', 'javascript');
  assert.is(await (await t.request('GET', '/.env', { as: 'none' })).text(), '<html>client entry</html>');
  assert.is(await (await t.request('GET', '/..%2foutside.txt', { as: 'none' })).text(), '<html>client entry</html>');
  assert.is(await (await t.request('GET', '/%2e%2e/outside.txt', { as: 'none' })).text(), '<html>client entry</html>');
});

// ---- client certificate ----

s('403 mTLS certificate required when X-SSL-Client-Verify is not SUCCESS', async ({ t }) => {
  const variants: Record<string, string>[] = [{}, { 'x-ssl-client-verify': 'NONE' }, { 'x-ssl-client-verify': 'FAILED:self-signed certificate', 'x-ssl-client-dn': 'CN=admin' }];
  for (const headers of variants) {
    const response = await t.app.fetch(new Request('http://panel.test/api/onboarding/status', { headers }));
    assert.is(response.status, 403);
    assert.equal(await response.json(), { error: 'mTLS certificate required' });
  }
});

s('a DN alone never authenticates: SUCCESS is required', async ({ t }) => {
  const { status } = await t.call('GET', '/api/onboarding/status', { as: { dn: 'CN=admin', verify: 'success' } });
  assert.is(status, 403);
});

s('403 Certificate has been revoked for a serial on the revocation list (any spelling)', async ({ t }) => {
  await t.services.store.revocations.update((list) => {
    list.push({ serial: '0a:1b', label: 'laptop-1', revokedAt: new Date().toISOString() });
  });
  const { status, body } = await t.call('GET', '/api/onboarding/status', { as: { agent: 'laptop-1', serial: 'A1B' } });
  assert.is(status, 403);
  assert.equal(body, { error: 'Certificate has been revoked' });
});

s('development mode bypasses the certificate check as admin', async () => {
  const t = await createTestApp({ mode: 'development', routes: allRoutes });
  try {
    const { status, body } = await t.call('POST', '/api/test/things/1', { as: 'none', body: { name: 'ab', size: 1 } });
    assert.is(status, 200);
    assert.is(body.role, 'admin');
  } finally {
    await t.close();
  }
});

s('public routes skip the certificate check', async ({ t }) => {
  await t.completeOnboarding();
  const { status, body } = await t.call('GET', '/api/test/public', { as: 'none' });
  assert.is(status, 200);
  assert.is(body.role, 'anonymous');
});

// ---- roles and capabilities ----

s('agent: CN gives the agent role and label; capabilities come from the registry', async ({ t }) => {
  await t.completeOnboarding();
  await t.addAgent('laptop-1', ['tunnels:read']);
  const ok = await t.call('GET', '/api/tunnels', { as: { agent: 'laptop-1' } });
  assert.is(ok.status, 200);
  const labelled = await t.call('GET', '/api/test/labelled', { as: { agent: 'laptop-1' } });
  assert.equal(labelled.body, { label: 'laptop-1' });
});

s('403 Insufficient certificate capability for an agent without the capability', async ({ t }) => {
  await t.completeOnboarding();
  await t.addAgent('laptop-2', ['sites:read']);
  for (const caller of [{ agent: 'laptop-2' }, { agent: 'not-registered' }]) {
    const { status, body } = await t.call('GET', '/api/tunnels', { as: caller });
    assert.is(status, 403);
    assert.equal(body, { error: 'Insufficient certificate capability' });
  }
});

s('a revoked agent record loses its capabilities', async ({ t }) => {
  await t.completeOnboarding();
  await t.addAgent('laptop-3', ['tunnels:read']);
  await t.services.store.agents.update((list) => {
    defined(list[0], 'the agent record').revokedAt = new Date().toISOString();
  });
  assert.is((await t.call('GET', '/api/tunnels', { as: { agent: 'laptop-3' } })).status, 403);
});

s('403 Insufficient certificate scope for an agent on an admin-only route', async ({ t }) => {
  const { status, body } = await t.call('GET', '/api/onboarding/status', { as: { agent: 'laptop-1' } });
  assert.is(status, 403);
  assert.equal(body, { error: 'Insufficient certificate scope' });
});

s('any other common name is admin, including multi-RDN DNs', async ({ t }) => {
  const { status, body } = await t.call('POST', '/api/test/things/7', { as: { dn: 'CN=ops-laptop,OU=ops,O=Relay Corp' }, body: { name: 'ab', size: 1 } });
  assert.is(status, 200);
  assert.is(body.role, 'admin');
});

s('needsLabel routes answer 400 to a certificate without an agent label', async ({ t }) => {
  const { status, body } = await t.call('GET', '/api/test/labelled');
  assert.is(status, 400);
  assert.equal(body, { error: 'Agent certificate label required' });
});

// ---- admin 2FA ----

async function enable2fa(t: TestApp) {
  await t.services.config.update({ panel2fa: { enabled: true, secret: 'JBSWY3DPEHPK3PXP', setupComplete: true } });
}

s('401 2fa_required for admin requests without a valid session cookie when 2FA is enabled', async ({ t }) => {
  await enable2fa(t);
  const { status, body } = await t.call('GET', '/api/onboarding/status');
  assert.is(status, 401);
  assert.equal(body, { error: '2fa_required' });
});

s('a signed, unexpired 2FA cookie passes; tampered or expired ones do not', async ({ t }) => {
  await enable2fa(t);
  const secret = twoFactorSessionKey(t.services.config.value.sessionSecret, t.services.config.value.panel2fa.secret)!;
  const now = t.services.clock.now();
  const good = issueTwoFactorSession(secret, now).value;
  const cookie = (value: string) => ({ cookie: `other=1; ${TWO_FACTOR_COOKIE}=${value}` });
  assert.is((await t.call('GET', '/api/onboarding/status', { headers: cookie(good) })).status, 200);
  const tampered = good.replace(/^\d+/, (n) => String(Number(n) + 1));
  assert.is((await t.call('GET', '/api/onboarding/status', { headers: cookie(tampered) })).status, 401);
  const expired = issueTwoFactorSession(secret, now - 13 * 3600 * 1000).value;
  assert.is((await t.call('GET', '/api/onboarding/status', { headers: cookie(expired) })).status, 401);
  const otherKey = issueTwoFactorSession('x'.repeat(64), now).value;
  assert.is((await t.call('GET', '/api/onboarding/status', { headers: cookie(otherKey) })).status, 401);
});

s('the Set-Cookie a 2FA verification sends is accepted back on the next request', async ({ t }) => {
  await enable2fa(t);
  const { value } = issueTwoFactorSession(twoFactorSessionKey(t.services.config.value.sessionSecret, t.services.config.value.panel2fa.secret)!, t.services.clock.now());
  const header = twoFactorCookieHeader(value, TWO_FACTOR_SESSION_MS);
  assert.match(header, /^relay_2fa=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Strict; Max-Age=43200$/);
  const cookie = defined(header.split(';')[0], 'the cookie pair');
  assert.is((await t.call('GET', '/api/onboarding/status', { headers: { cookie } })).status, 200);
});

s('agents and exempt paths skip the 2FA check', async ({ t }) => {
  await enable2fa(t);
  await t.completeOnboarding();
  await t.addAgent('laptop-1', ['tunnels:read']);
  assert.is((await t.call('GET', '/api/tunnels', { as: { agent: 'laptop-1' } })).status, 200);
  assert.is((await t.call('GET', '/api/test/2fa-exempt')).status, 200);
});

// ---- onboarding gate ----

s('503 Onboarding not complete, with onboardingStatus, for management routes before COMPLETED', async ({ t }) => {
  for (const status of ['FRESH', 'DOMAIN_SET', 'DNS_READY', 'PROVISIONING'] as const) {
    await t.services.config.update({ onboarding: { status } });
    const res = await t.call('GET', '/api/tunnels');
    assert.is(res.status, 503);
    assert.equal(res.body, { error: 'Onboarding not complete', onboardingStatus: status });
  }
});

s('410 for onboarding routes after COMPLETED; onboarding status stays open', async ({ t }) => {
  assert.is((await t.call('POST', '/api/test/onboarding-step')).status, 200);
  await t.completeOnboarding();
  const gone = await t.call('POST', '/api/test/onboarding-step');
  assert.is(gone.status, 410);
  assert.is(gone.body.error, 'Onboarding already completed');
  const status = await t.call('GET', '/api/onboarding/status');
  assert.equal(status.body, { status: 'COMPLETED', domain: 'example.test', email: 'ops@example.test', suggestedDomain: 'relay.localhost', publicLinks: { scheme: 'https', port: null } });
});

s('the certificate check runs before the onboarding gate', async ({ t }) => {
  assert.is((await t.call('GET', '/api/tunnels', { as: 'none' })).status, 403);
});

// ---- validation and errors ----

s('400 Validation failed with details.issues for params, query and body', async ({ t }) => {
  const bad = await t.call('POST', '/api/test/things/abc?dryRun=maybe', { body: { name: 'x', size: 99 } });
  assert.is(bad.status, 400);
  assert.is(bad.body.error, 'Validation failed');
  const paths = bad.body.details.issues.map((i: { path: string }) => i.path);
  assert.equal(paths, ['id']);
  const query = await t.call('POST', '/api/test/things/1?dryRun=maybe', { body: { name: 'x', size: 1 } });
  assert.equal(query.body.details.issues.map((i: { path: string }) => i.path), ['dryRun']);
  const body = await t.call('POST', '/api/test/things/1', { body: { name: 'x', size: 99 } });
  assert.equal(body.body.details.issues.map((i: { path: string }) => i.path).sort(), ['name', 'size']);
  assert.ok(body.body.details.issues.every((i: { message: string }) => typeof i.message === 'string' && i.message.length > 0));
});

s('valid input reaches the handler parsed', async ({ t }) => {
  const ok = await t.call('POST', '/api/test/things/12?dryRun=yes', { body: { name: 'abc', size: 3 } });
  assert.is(ok.status, 200);
  assert.equal(ok.body, { params: { id: '12' }, query: { dryRun: 'yes' }, body: { name: 'abc', size: 3 }, role: 'admin' });
});

s('malformed JSON is a 400 validation failure; a wrong content type 415; a huge body 413', async ({ t }) => {
  const malformed = await t.call('POST', '/api/test/things/1', { body: '{"name": ', headers: { 'content-type': 'application/json' } });
  assert.is(malformed.status, 400);
  assert.is(malformed.body.error, 'Validation failed');
  const wrongType = await t.call('POST', '/api/test/things/1', { body: 'name=ab', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.is(wrongType.status, 415);
  const huge = await t.call('POST', '/api/test/things/1', { body: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), size: 1 }) });
  assert.is(huge.status, 413);
});

s('a chunked body with no declared length is cut off at the limit: 413', async ({ t }) => {
  let sent = 0;
  const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  const init = { method: 'POST', body: endless, duplex: 'half', headers: { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-dn': 'CN=admin', 'content-type': 'application/json' } };
  const response = await t.app.fetch(new Request('http://panel.test/api/test/things/1', init as RequestInit));
  assert.is(response.status, 413);
  assert.ok(sent < 2 * 1024 * 1024, `read ${sent} bytes of an endless body`);
});

s('framework 4xx errors pass through with their status', async ({ t }) => {
  const { status, body } = await t.call('GET', '/api/test/teapot');
  assert.is(status, 418);
  assert.equal(body, { error: 'I am a teapot' });
});

s('operational errors keep their status, message and details', async ({ t }) => {
  const { status, body } = await t.call('GET', '/api/test/conflict');
  assert.is(status, 409);
  assert.equal(body, { error: 'Already there', details: { hint: 'x' } });
});

s('500 Internal server error hides internals in production', async ({ t }) => {
  const { status, body } = await t.call('GET', '/api/test/bug');
  assert.is(status, 500);
  assert.equal(body, { error: 'Internal server error' });
});

s('500 Internal server error carries message and stack in development', async () => {
  const t = await createTestApp({ mode: 'development', routes: allRoutes });
  try {
    const { status, body } = await t.call('GET', '/api/test/bug');
    assert.is(status, 500);
    assert.is(body.error, 'Internal server error');
    assert.is(body.details.message, 'secret internal detail');
    assert.match(body.details.stack, 'Error: secret internal detail');
  } finally {
    await t.close();
  }
});

// ---- tunnels list ----

s('GET /api/tunnels lists the store newest first', async ({ t }) => {
  await t.completeOnboarding();
  await t.services.store.tunnels.update((list) => {
    const created = [['old', '2026-01-01T00:00:00.000Z'], ['newest', '2026-03-01T00:00:00.000Z'], ['middle', '2026-02-01T00:00:00.000Z']] as const;
    for (const [i, [sub, createdAt]] of created.entries()) {
      list.push({ id: crypto.randomUUID(), subdomain: sub, fqdn: `${sub}.example.test`, port: 3000 + i, description: null, enabled: true, createdAt });
    }
  });
  const { status, body, response } = await t.call('GET', '/api/tunnels');
  assert.is(status, 200);
  assert.match(response.headers.get('content-type') ?? '', 'application/json');
  assert.equal(body.tunnels.map((x: { subdomain: string }) => x.subdomain), ['newest', 'middle', 'old']);
  await t.services.store.tunnels.update((list) => void list.splice(0, 1));
  const after = await t.call('GET', '/api/tunnels');
  assert.equal(after.body.tunnels.map((x: { subdomain: string }) => x.subdomain), ['newest', 'middle']);
});

s.run();
