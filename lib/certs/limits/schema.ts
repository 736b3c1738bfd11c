import { z } from 'zod';

// The issuance ledger's record and the limits' setting. The ledger holds the ACME orders the panel
// itself placed (certbot runs it started), for as long as the longest limit window looks back.

/** One certbot run the panel started: a certificate order, issued or failed. */
export const CertIssuanceRecord = z.object({
  id: z.string(),
  at: z.string().min(1),
  /** the ACME directory the order went to: each CA (and Let's Encrypt's staging) counts apart */
  server: z.string(),
  /** the certificate's names, lower case and sorted: the "exact set" duplicates are counted by */
  names: z.array(z.string()).min(1),
  /** `renewal`: a certificate for the same names existed (exempt from the per-domain limit) */
  kind: z.enum(['new', 'renewal']),
  outcome: z.enum(['issued', 'failed']),
  /** names whose validation the CA reported failed (counted per hostname per hour) */
  failedValidations: z.array(z.string()).default([]),
});
export type CertIssuanceRecord = z.infer<typeof CertIssuanceRecord>;

const Max = z.number().int().min(1).max(10_000_000).nullable();

/**
 * `certLimits` in the configuration: each given field replaces the CA's default (null: no limit).
 * Let's Encrypt's production and staging servers have their published numbers as defaults; any
 * other ACME server (pebble, another CA) has none unless set here.
 */
export const CertLimitsSetting = z
  .object({
    /** new certificates per registered domain per 7 days (renewals exempt) */
    newPerRegisteredDomain: Max.optional(),
    /** certificates for the same exact set of names per 7 days */
    duplicatePerNameSet: Max.optional(),
    /** failed validations per hostname per hour */
    failedValidationsPerHostname: Max.optional(),
    /** new orders per ACME account per 3 hours */
    ordersPerAccount: Max.optional(),
  })
  .strict();
export type CertLimitsSetting = z.infer<typeof CertLimitsSetting>;

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
