import { z } from 'zod';

// The issuance ledger's record and the limits' setting. The ledger holds the ACME orders the panel
// itself placed (certbot runs it started), for as long as the longest limit window looks back.

export { CertIssuanceRecord } from '../../state/schemas.ts';
export { CertLimitsSetting } from '../../cert-settings.ts';

export const LIMIT_NAMES = ['newPerRegisteredDomain', 'duplicatePerNameSet', 'failedValidationsPerHostname', 'ordersPerAccount'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** One counted key of one limit: GET /api/certs/limits's entries. */
export const LimitCount = z.object({
  limit: z.enum(LIMIT_NAMES),
  /** the registered domain, the name set (comma-joined), the hostname, or the ACME server */
  key: z.string(),
  count: z.number().int(),
  /** null: this limit is off */
  max: z.number().int().nullable(),
  windowSeconds: z.number().int(),
  /** when the next slot frees, when none is free now; null while one is */
  nextFreeAt: z.string().nullable(),
});
export type LimitCount = z.infer<typeof LimitCount>;

export const LimitsAnswer = z.object({
  server: z.string(),
  /** where the numbers come from: Let's Encrypt's published ones, or the setting alone */
  source: z.enum(['letsencrypt', 'letsencrypt-staging', 'setting']),
  limits: z.object({ newPerRegisteredDomain: z.number().int().nullable(), duplicatePerNameSet: z.number().int().nullable(), failedValidationsPerHostname: z.number().int().nullable(), ordersPerAccount: z.number().int().nullable() }),
  counts: z.array(LimitCount),
});
export type LimitsAnswer = z.infer<typeof LimitsAnswer>;
