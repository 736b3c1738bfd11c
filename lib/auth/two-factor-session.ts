import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Name of the admin 2FA session cookie issued by POST /api/settings/2fa/verify. */
export const TWO_FACTOR_COOKIE = 'relay_2fa';
/** How long a verified admin session lasts. */
export const TWO_FACTOR_SESSION_MS = 12 * 60 * 60 * 1000;

// Cookie value: `<expiresAtMs>.<nonce>.<base64url HMAC-SHA256(key, "<expiresAtMs>.<nonce>")>`.

/**
 * The signing key: the configuration's session secret with the TOTP secret the session was proved
 * against, so disabling 2FA or enabling it with a new secret ends every session issued before.
 * Null when either is missing: nothing is signed with an empty or guessable key.
 */
export function twoFactorSessionKey(sessionSecret: string | undefined, totpSecret: string | null): string | null {
  if (!sessionSecret || !totpSecret) return null;
  return `${sessionSecret}\n${totpSecret}`;
}

function sign(key: string, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

export function issueTwoFactorSession(key: string, now: number): { value: string; expiresAt: number } {
  const expiresAt = now + TWO_FACTOR_SESSION_MS;
  const payload = `${expiresAt}.${randomBytes(16).toString('base64url')}`;
  return { value: `${payload}.${sign(key, payload)}`, expiresAt };
}

export function twoFactorCookieHeader(value: string, maxAgeMs: number): string {
  return `${TWO_FACTOR_COOKIE}=${value}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}`;
}

export function verifyTwoFactorSession(key: string | null, value: string | undefined, now: number): boolean {
  if (!value || !key) return false;
  const parts = value.split('.');
  if (parts.length !== 3) return false;
  const [expires, nonce, mac] = parts as [string, string, string];
  if (!/^\d+$/.test(expires) || Number(expires) <= now) return false;
  const expected = Buffer.from(sign(key, `${expires}.${nonce}`));
  const given = Buffer.from(mac);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Every value of the cookie, in the order sent. A sibling site of the domain can set a cookie of
 * the same name for the parent domain, which the browser sends first: one forged copy must not
 * hide the real one.
 */
export function readCookies(header: string | null, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) values.push(part.slice(eq + 1).trim());
  }
  return values;
}
