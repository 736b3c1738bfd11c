import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { matchTotpStep } from '../../../lib/auth/totp.ts';
import { callerHeaders, type TestApp } from '../../../lib/testing.ts';
import type { ManualClock } from '../../helpers/manual-clock.ts';
import { onboardedMidStep, totpCode } from '../../helpers/totp.ts';
import { serve } from '../../helpers/http-server.ts';

const s = suite('admin 2FA: /api/settings/2fa');
let t: TestApp;
let clock: ManualClock;
const IP_PANEL = { kind: 'ip-panel' } as const;

s.before.each(async () => {
  ({ t, clock } = await onboardedMidStep());
  await t.services.system.proxy.apply([{ op: 'put', spec: IP_PANEL, enabled: true }]);
});
s.after.each(() => t.close());

const codeAt = (secret: string, offsetSteps = 0) => totpCode(secret, clock.now(), offsetSteps);
/** Six digits that are no code of `secret` within ±1 step now: a random code could be one. */
const wrongCode = (secret: string) => {
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (matchTotpStep(secret, code, clock.now()) === null) return code;
  }
};
const ipPanelEnabled = async () => (await t.services.system.proxy.state(t.services.system.proxy.vhostName(IP_PANEL))).enabled;
const cookieOf = (r: { response: Response }) => r.response.headers.get('set-cookie')!.split(';')[0]!;

async function enable(): Promise<{ secret: string; cookie: string }> {
  const setup = await t.call('POST', '/api/settings/2fa/setup');
  assert.is(setup.status, 200, JSON.stringify(setup.body));
  const confirm = await t.call('POST', '/api/settings/2fa/confirm', { body: { code: codeAt(setup.body.manualKey) } });
  assert.is(confirm.status, 200, JSON.stringify(confirm.body));
  return { secret: setup.body.manualKey, cookie: cookieOf(confirm) };
}

const OFF = { enabled: false, setupComplete: false };

s('setup answers Portlama\'s {uri, manualKey}: the otpauth URI and its base32 key; nothing is enabled until confirm', async () => {
  assert.equal((await t.call('GET', '/api/settings/2fa')).body, OFF);
  const r = await t.call('POST', '/api/settings/2fa/setup');
  assert.equal(Object.keys(r.body).sort(), ['manualKey', 'ok', 'uri']);
  assert.match(r.body.manualKey, /^[A-Z2-7]{32}$/);
  assert.match(r.body.uri, /^otpauth:\/\/totp\/Relay%20Panel:admin%40example\.test\?/);
  assert.match(r.body.uri, `secret=${r.body.manualKey}`);
  assert.equal(t.services.config.value.panel2fa, { enabled: false, secret: r.body.manualKey, setupComplete: false });
  assert.equal((await t.call('GET', '/api/settings/2fa')).body, OFF);
  assert.ok(await ipPanelEnabled());
});

s('cancel ends an unconfirmed setup: its secret is dropped and can no longer be confirmed; 409 once enabled', async () => {
  const none = await t.call('POST', '/api/settings/2fa/cancel');
  assert.equal([none.status, none.body], [200, { ok: true, enabled: false }], 'nothing pending is fine');
  const setup = await t.call('POST', '/api/settings/2fa/setup');
  const cancelled = await t.call('POST', '/api/settings/2fa/cancel');
  assert.equal([cancelled.status, cancelled.body], [200, { ok: true, enabled: false }]);
  assert.equal(t.services.config.value.panel2fa, { enabled: false, secret: null, setupComplete: false });
  assert.equal((await t.call('GET', '/api/settings/2fa')).body, OFF);
  const late = await t.call('POST', '/api/settings/2fa/confirm', { body: { code: codeAt(setup.body.manualKey) } });
  assert.equal([late.status, late.body.error], [400, 'No 2FA setup in progress. Call POST /settings/2fa/setup first.']);
  assert.ok(await ipPanelEnabled());
  const { cookie } = await enable();
  const refused = await t.call('POST', '/api/settings/2fa/cancel', { headers: { cookie } });
  assert.equal([refused.status, refused.body], [409, { error: '2FA is already enabled' }]);
  assert.is(t.services.config.value.panel2fa.enabled, true);
});

s('setup without a domain is 400: 2FA would turn off the only way in, the IP-address panel', async () => {
  await t.services.config.update({ domain: null });
  const r = await t.call('POST', '/api/settings/2fa/setup');
  assert.is(r.status, 400);
  assert.is(r.body.error, 'Domain must be configured before enabling 2FA');
  assert.type(r.body.details.hint, 'string');
  assert.equal(t.services.config.value.panel2fa, { enabled: false, secret: null, setupComplete: false });
});

s('a code that is not 6 digits is the spec\'s 400 `Validation failed` on confirm, verify and disable; details.issues name `code` with Portlama\'s message', async () => {
  const { secret, cookie } = await enable();
  clock.advance(30_000);
  for (const path of ['confirm', 'verify', 'disable']) {
    for (const body of [{ code: '12345' }, { code: '1234567' }, { code: '12345a' }, { code: 123456 }, {}]) {
      const r = await t.call('POST', `/api/settings/2fa/${path}`, { body, headers: { cookie } });
      assert.is(r.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.is(r.body.error, 'Validation failed', `${path} ${JSON.stringify(body)}`);
      assert.is(r.body.details.issues[0].path, 'code');
      // one issue, also for a code too long (the length check stops the pattern's)
      if (typeof body.code === 'string') assert.equal(r.body.details.issues, [{ path: 'code', message: 'Code must be exactly 6 digits' }]);
    }
  }
  // none of those counted as a try: a good code still passes
  assert.is((await t.call('POST', '/api/settings/2fa/verify', { body: { code: codeAt(secret) } })).status, 200);
});

s('confirm with a good code enables 2FA, disables the IP panel vhost and sets the session cookie', async () => {
  const setup = await t.call('POST', '/api/settings/2fa/setup');
  const wrong = await t.call('POST', '/api/settings/2fa/confirm', { body: { code: codeAt(setup.body.manualKey, 3) } });
  assert.is(wrong.status, 401);
  assert.equal(wrong.body, { error: 'Invalid TOTP code' });
  const r = await t.call('POST', '/api/settings/2fa/confirm', { body: { code: codeAt(setup.body.manualKey) } });
  assert.equal(r.body, { ok: true, enabled: true });
  assert.match(r.response.headers.get('set-cookie')!, /^relay_2fa=\d+\.[\w-]+\.[\w-]+; Path=\/; HttpOnly; Secure; SameSite=Strict; Max-Age=43200$/);
  assert.is(t.services.config.value.panel2fa.enabled, true);
  assert.is(await ipPanelEnabled(), false);
  // the session check now applies: without the cookie 401, with it through; agents skip it
  assert.equal((await t.call('GET', '/api/tunnels')).body, { error: '2fa_required' });
  assert.is((await t.call('GET', '/api/tunnels', { headers: { cookie: cookieOf(r) } })).status, 200);
  await t.addAgent('laptop-1', ['tunnels:read']);
  assert.is((await t.call('GET', '/api/tunnels', { as: { agent: 'laptop-1' } })).status, 200);
  assert.equal((await t.call('GET', '/api/settings/2fa')).body, { enabled: true, setupComplete: true });
});

s('verify sets the cookie; a code is good once; ±1 step accepted, 2 steps refused', async () => {
  const { secret } = await enable();
  clock.advance(30_000);
  const r = await t.call('POST', '/api/settings/2fa/verify', { body: { code: codeAt(secret) } });
  assert.equal(r.body, { ok: true, verified: true });
  assert.is((await t.call('GET', '/api/tunnels', { headers: { cookie: cookieOf(r) } })).status, 200);
  const replay = await t.call('POST', '/api/settings/2fa/verify', { body: { code: codeAt(secret) } });
  assert.is(replay.status, 401);
  assert.equal(replay.body, { error: 'Invalid TOTP code' });
  assert.is(replay.response.headers.get('set-cookie'), null, 'no cookie without a good code');
  clock.advance(60_000);
  assert.is((await t.call('POST', '/api/settings/2fa/verify', { body: { code: codeAt(secret, 2) } })).status, 401, '+2 steps');
  assert.is((await t.call('POST', '/api/settings/2fa/verify', { body: { code: codeAt(secret, 1) } })).status, 200, '+1 step');
  clock.advance(60_000);
  assert.is((await t.call('POST', '/api/settings/2fa/verify', { body: { code: codeAt(secret, -2) } })).status, 401, '-2 steps');
});

s('verify with a wrong 6-digit code is 401 Invalid TOTP code: no cookie, the session check still applies', async () => {
  const { secret } = await enable();
  clock.advance(30_000);
  const r = await t.call('POST', '/api/settings/2fa/verify', { body: { code: wrongCode(secret) } });
  assert.is(r.status, 401);
  assert.equal(r.body, { error: 'Invalid TOTP code' });
  assert.is(r.response.headers.get('set-cookie'), null);
  assert.equal((await t.call('GET', '/api/tunnels')).body, { error: '2fa_required' });
});

s('verify allows 5 tries a minute per client address, good codes included; 429 says when to retry', async () => {
  const { secret } = await enable();
  clock.advance(60_000);
  for (let i = 0; i < 5; i++) assert.is((await t.call('POST', '/api/settings/2fa/verify', { body: { code: '000000' } })).status, 401);
  const limited = await t.call('POST', '/api/settings/2fa/verify', { body: { code: codeAt(secret) } });
  assert.is(limited.status, 429);
  assert.equal(limited.body, { error: 'Too many attempts. Try again later.', details: { retryAfter: 60 } });
  assert.is(limited.response.headers.get('retry-after'), '60');
  assert.is(limited.response.headers.get('set-cookie'), null);
  clock.advance(29_500);
  const later = await t.call('POST', '/api/settings/2fa/verify', { body: { code: codeAt(secret) } });
  assert.equal(later.body, { error: 'Too many attempts. Try again later.', details: { retryAfter: 31 } }, 'whole seconds left in the window, rounded up');
  assert.is(later.response.headers.get('retry-after'), '31');
  clock.advance(30_500);
  assert.is((await t.call('POST', '/api/settings/2fa/verify', { body: { code: codeAt(secret) } })).status, 200, 'a new minute');
});

s('the verify limit is per client address: behind the proxy, another X-Forwarded-For address has its own count', async () => {
  await enable();
  const server = await serve(t.app);
  try {
    const verify = (ip: string) => fetch(`${server.url}/api/settings/2fa/verify`, {
      method: 'POST',
      headers: { ...callerHeaders('admin'), 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify({ code: '000000' }),
    }).then((r) => r.status);
    for (let i = 0; i < 5; i++) assert.is(await verify('198.51.100.1'), 401);
    assert.is(await verify('198.51.100.1'), 429);
    assert.is(await verify('198.51.100.2'), 401);
  } finally {
    await server.close();
  }
});

s('disable needs a good code; it turns 2FA off and the IP panel vhost back on', async () => {
  const { secret, cookie } = await enable();
  clock.advance(30_000);
  assert.is((await t.call('POST', '/api/settings/2fa/disable', { body: { code: codeAt(secret) } })).status, 401, 'the session check applies');
  const bad = await t.call('POST', '/api/settings/2fa/disable', { body: { code: '12345' }, headers: { cookie } });
  assert.is(bad.status, 400);
  const r = await t.call('POST', '/api/settings/2fa/disable', { body: { code: codeAt(secret) }, headers: { cookie } });
  assert.equal(r.body, { ok: true, enabled: false });
  assert.match(r.response.headers.get('set-cookie')!, /^relay_2fa=; .*Max-Age=0$/);
  assert.equal(t.services.config.value.panel2fa, { enabled: false, secret: null, setupComplete: false });
  assert.ok(await ipPanelEnabled());
  assert.is((await t.call('GET', '/api/tunnels')).status, 200);
  assert.is((await t.call('POST', '/api/settings/2fa/verify', { body: { code: '123456' } })).body.error, '2FA is not enabled');
});

s('setup while enabled is 409; confirm without setup is 400; a failed vhost change leaves 2FA off', async () => {
  const none = await t.call('POST', '/api/settings/2fa/confirm', { body: { code: '123456' } });
  assert.is(none.status, 400);
  assert.is(none.body.error, 'No 2FA setup in progress. Call POST /settings/2fa/setup first.');
  const { sandboxControls } = await import('../../../lib/system/sandbox-system.ts');
  const setup = await t.call('POST', '/api/settings/2fa/setup');
  sandboxControls(t.services.system).failNext('proxy.apply');
  const failed = await t.call('POST', '/api/settings/2fa/confirm', { body: { code: codeAt(setup.body.manualKey) } });
  assert.is(failed.status, 500);
  assert.is(failed.body.error, 'Failed to enable 2FA');
  assert.is(t.services.config.value.panel2fa.enabled, false);
  assert.ok(await ipPanelEnabled());
  clock.advance(30_000);
  const { cookie } = await (async () => {
    const r = await t.call('POST', '/api/settings/2fa/confirm', { body: { code: codeAt(setup.body.manualKey) } });
    return { cookie: cookieOf(r) };
  })();
  assert.is((await t.call('POST', '/api/settings/2fa/setup', { headers: { cookie } })).status, 409);
});

s('every settings route is admin-only; the secret never reaches the log', async () => {
  await t.addAgent('laptop-1', ['tunnels:read']);
  for (const [method, path] of [['GET', '/api/settings/2fa'], ['POST', '/api/settings/2fa/setup'], ['POST', '/api/settings/2fa/cancel'], ['POST', '/api/settings/2fa/confirm'], ['POST', '/api/settings/2fa/verify'], ['POST', '/api/settings/2fa/disable']] as const) {
    const r = await t.call(method, path, { as: { agent: 'laptop-1' }, body: method === 'POST' ? { code: '123456' } : undefined });
    assert.is(r.status, 403, path);
  }
  const { secret } = await enable();
  assert.not.ok(t.services.log.recent(500).some((e) => e.message.includes(secret)));
});

s('matchTotpStep: the step of a code within ±1, null otherwise', () => {
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  const now = 1_800_000_015_000;
  const step = Math.floor(now / 30_000);
  for (const d of [-1, 0, 1]) assert.is(matchTotpStep(secret, totpCode(secret, now, d), now), step + d);
  assert.is(matchTotpStep(secret, totpCode(secret, now, 2), now), null);
  assert.is(matchTotpStep(secret, 'abcdef', now), null);
});

s.run();
