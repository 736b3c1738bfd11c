// What the configuration stores about certificates (lib/config.ts reads it at start, below
// everything that issues them): the certificate mode (lib/certs/dns01) and the ACME limits' setting
// (lib/certs/limits). Kept apart from those folders so the configuration imports nothing above it.
import { z } from 'zod';

/** certbot's Debian DNS plugins the wildcard mode can use (lib/certs/dns01/providers.ts has their details). */
export const DNS_PROVIDERS = ['rfc2136', 'cloudflare', 'digitalocean', 'route53', 'ovh', 'linode', 'gandi', 'google', 'dnsimple'] as const;
export type DnsProvider = (typeof DNS_PROVIDERS)[number];

/** A DNS change may take long to reach every authoritative server of a hosted zone; an hour is beyond any. */
export const propagationSeconds = z.number().int().min(0).max(3600);

export const CertificateModeRecord = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('per-name') }),
  z.strictObject({
    mode: z.literal('wildcard'),
    provider: z.enum(DNS_PROVIDERS),
    /** the certbot lineage: the base domain, covering it and `*.<domain>` */
    lineage: z.string().min(1).max(253),
    propagationSeconds: propagationSeconds.nullable(),
    /** which credential keys the file holds (their values are never stored here) */
    keysSet: z.array(z.string().max(64)).max(16),
  }),
]);
export type CertificateModeRecord = z.infer<typeof CertificateModeRecord>;
export type WildcardMode = Extract<CertificateModeRecord, { mode: 'wildcard' }>;

export const PER_NAME: CertificateModeRecord = { mode: 'per-name' };

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

