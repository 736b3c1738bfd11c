// Attack: a stolen admin certificate without the TOTP device. The verify limit is per client
// address, so an attacker with many addresses (a botnet, an IPv6 /64) would try codes in parallel:
// at 5 a minute from each of 1,000 addresses, a 6-digit code with ±1 step falls in about an hour.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callerHeaders, type TestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import type { ManualClock } from '../../helpers/manual-clock.ts';
import { onboardedMidStep, totpCode } from '../../helpers/totp.ts';
import { withTimeout } from '../../helpers/timeout.ts';

const s = suite('security: 2FA codes cannot be guessed from many addresses at once');
let t: TestApp;
let clock: ManualClock;
s.before.each(async () => {
  ({ t, clock } = await onboardedMidStep());
});
s.after.each(() => t.close());

const codeAt = (secret: string) => totpCode(secret, clock.now());

s('past 20 tries a minute in all, every address gets 429; a new minute opens again', () =>
  withTimeout('2fa brute force', 10_000, async () => {
    const setup = await t.call('POST', '/api/settings/2fa/setup');
    assert.is((await t.call('POST', '/api/settings/2fa/confirm', { body: { code: codeAt(setup.body.manualKey) } })).status, 200);
    clock.advance(60_000);
    const server = await serve(t.app);
    let retryAfter: string | null = null;
    try {
      const verify = (ip: string, code = '000000') => fetch(`${server.url}/api/settings/2fa/verify`, {
        method: 'POST',
        headers: { ...callerHeaders('admin'), 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: JSON.stringify({ code }),
      }).then((r) => {
        retryAfter = r.headers.get('retry-after');
        return r.status;
      });
      for (let i = 0; i < 20; i++) assert.is(await verify(`198.51.100.${1 + Math.floor(i / 4)}`), 401, `try ${i + 1}`);
      assert.is(await verify('203.0.113.77'), 429, 'a fresh address past the overall limit');
      assert.is(retryAfter, '60', 'the overall window\'s end, though the address has just begun its own');
      assert.is(await verify('203.0.113.78', codeAt(setup.body.manualKey)), 429, 'even with the right code');
      clock.advance(60_000);
      assert.is(await verify('203.0.113.78', codeAt(setup.body.manualKey)), 200);
    } finally {
      await server.close();
    }
  }),
);

s.run();
