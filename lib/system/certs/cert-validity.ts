// When a certificate counts as present, shared by the host (certbot) and sandbox certificates.
import type { SystemConfig } from '../config.ts';
import { certificateExpiry } from '../pki/self-signed.ts';

const DAY = 86_400_000;

/** Whole days until `expiresAt` (negative once expired). */
export function daysLeft(expiresAt: number, now: number): number {
  return Math.floor((expiresAt - now) / DAY);
}

/** Whether a certificate exists (`expiry` not null) and stays valid for more than acme.minValidDays. */
export function staysValid(config: SystemConfig, expiry: Date | null, now: number): boolean {
  return expiry !== null && expiry.getTime() - now > config.acme.minValidDays * DAY;
}

/** Whether the certificate at `fullchain` exists and stays valid for more than acme.minValidDays. */
export async function hasValidCert(config: SystemConfig, fullchain: string, now: number): Promise<boolean> {
  return staysValid(config, await certificateExpiry(fullchain), now);
}
