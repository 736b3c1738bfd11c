// The signature a webhook receiver checks: HMAC-SHA256 of the exact body bytes, keyed with the
// webhook's secret, hex, in X-Relay-Signature as `sha256=<hex>` (docs/operations.md > Alerts).
import { createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-relay-signature';

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** 32 random bytes: what a webhook gets when its creator names no secret. */
export function newWebhookSecret(): string {
  return randomBytes(32).toString('base64url');
}
