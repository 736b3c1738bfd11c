import { timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

const PERIOD_S = 30;
/** Codes of the previous and the next step are accepted too (clock drift). */
const WINDOW = 1;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function otpauthUri(base32Secret: string, issuer: string, label: string): string {
  return new TOTP({ issuer, label, secret: Secret.fromBase32(base32Secret), algorithm: 'SHA1', digits: 6, period: PERIOD_S }).toString();
}

/**
 * The time step a 6-digit code belongs to within ±1 step of `now`, or null. Every candidate is
 * compared in constant time, and all of them are computed whatever matches.
 */
export function matchTotpStep(base32Secret: string, code: string, now: number): number | null {
  const totp = new TOTP({ secret: Secret.fromBase32(base32Secret), algorithm: 'SHA1', digits: 6, period: PERIOD_S });
  const current = Math.floor(now / 1000 / PERIOD_S);
  const given = Buffer.from(code.padEnd(6, ' ').slice(0, 6));
  let matched: number | null = null;
  for (let step = current - WINDOW; step <= current + WINDOW; step++) {
    const expected = Buffer.from(totp.generate({ timestamp: step * PERIOD_S * 1000 }));
    if (timingSafeEqual(expected, given) && matched === null) matched = step;
  }
  return matched;
}
