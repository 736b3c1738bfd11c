import { Secret, TOTP } from 'otpauth';

/**
 * A new TOTP secret and its URI in the spec's form:
 * `otpauth://totp/<issuer>:<username>?secret=...&issuer=...&algorithm=SHA1&digits=6&period=30`.
 * otpauth makes the secret (160 random bits, RFC 4226's recommended size) and the parameters; the
 * query is written in the spec's order, which otpauth's own `toString()` does not follow.
 */
export function newTotp(issuer: string, username: string): { secret: string; uri: string } {
  const totp = new TOTP({ issuer, label: username, algorithm: 'SHA1', digits: 6, period: 30, secret: new Secret({ size: 20 }) });
  const query = new URLSearchParams({
    secret: totp.secret.base32,
    issuer: totp.issuer,
    algorithm: totp.algorithm,
    digits: String(totp.digits),
    period: String(totp.period),
  });
  return { secret: totp.secret.base32, uri: `otpauth://totp/${encodeURIComponent(totp.issuer)}:${encodeURIComponent(totp.label)}?${query}` };
}
