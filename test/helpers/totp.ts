// Admin 2FA in tests: an onboarded app on a clock that sits mid TOTP step, and the code an
// authenticator would show at a given moment.
import { Secret, TOTP } from 'otpauth';
import { createTestApp, type TestApp } from '../../lib/testing.ts';
import { ManualClock } from './manual-clock.ts';

const STEP_MS = 30_000;

/** The 6-digit SHA-1 code of `base32Secret` at `timestamp`, `offsetSteps` steps away. */
export const totpCode = (base32Secret: string, timestamp: number, offsetSteps = 0): string =>
  new TOTP({ secret: Secret.fromBase32(base32Secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: timestamp + offsetSteps * STEP_MS });

/** An onboarded app whose clock is 10 s into a step, so that ±1 step stays inside a test's own moves. */
export async function onboardedMidStep(): Promise<{ t: TestApp; clock: ManualClock }> {
  const clock = new ManualClock(Math.floor(Date.now() / STEP_MS) * STEP_MS + 10_000);
  const t = await createTestApp({ clock });
  await t.completeOnboarding();
  return { t, clock };
}
