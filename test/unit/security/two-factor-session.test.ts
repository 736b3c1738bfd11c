// Attack: a 2FA session cookie taken earlier (a stolen cookie, a shared browser) outlives the 2FA it
// was issued for: after 2FA is disabled and enabled again with a new secret it must be worthless.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type TestApp } from '../../../lib/testing.ts';
import type { ManualClock } from '../../helpers/manual-clock.ts';
import { onboardedMidStep, totpCode } from '../../helpers/totp.ts';

const s = suite('security: 2FA session cookies are bound to the 2FA secret they were issued under');
let t: TestApp;
let clock: ManualClock;

s.before.each(async () => {
  ({ t, clock } = await onboardedMidStep());
});
s.after.each(() => t.close());

const codeAt = (secret: string) => totpCode(secret, clock.now());
const cookieOf = (r: { response: Response }) => r.response.headers.get('set-cookie')!.split(';')[0]!;
const tunnelsWith = async (cookie: string) => (await t.call('GET', '/api/tunnels', { headers: { cookie } })).status;

async function enable(): Promise<{ secret: string; cookie: string }> {
  const setup = await t.call('POST', '/api/settings/2fa/setup');
  const confirm = await t.call('POST', '/api/settings/2fa/confirm', { body: { code: codeAt(setup.body.manualKey) } });
  assert.is(confirm.status, 200, JSON.stringify(confirm.body));
  return { secret: setup.body.manualKey, cookie: cookieOf(confirm) };
}

s('a cookie from before a disable and re-enable (a new TOTP secret) is refused; the new one works', async () => {
  const first = await enable();
  assert.is(await tunnelsWith(first.cookie), 200);
  clock.advance(30_000);
  const off = await t.call('POST', '/api/settings/2fa/disable', { body: { code: codeAt(first.secret) }, headers: { cookie: first.cookie } });
  assert.is(off.status, 200, JSON.stringify(off.body));
  clock.advance(30_000);
  const second = await enable();
  assert.is(await tunnelsWith(first.cookie), 401, 'the old cookie still opened the panel');
  assert.is(await tunnelsWith(second.cookie), 200);
});

s('a cookie tossed by a sibling site (same name, parent domain, sent first) does not lock the admin out', async () => {
  const { cookie } = await enable();
  // a page on docs.<domain> can set `relay_2fa` for the whole domain with a longer path: the browser
  // then sends it before the panel's own
  assert.is(await tunnelsWith(`relay_2fa=1.x.forged; ${cookie}`), 200);
  assert.is(await tunnelsWith('relay_2fa=1.x.forged'), 401);
});

s.run();
