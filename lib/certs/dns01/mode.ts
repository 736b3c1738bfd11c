// The certificate mode: one certificate per name through HTTP-01 (the default), or one wildcard
// certificate for the base domain and `*.<domain>` through DNS-01. What is stored in the
// configuration (never a credential: those are in the file of credentials-file.ts), what the API
// takes and what it answers.
import { z } from 'zod';
import { propagationSeconds } from '../../cert-settings.ts';
import { DNS_PROVIDERS, ProviderCredentials, type DnsProvider } from './providers.ts';

export { CertificateModeRecord, PER_NAME, propagationSeconds, type WildcardMode } from '../../cert-settings.ts';

const wildcardInput = <P extends DnsProvider>(provider: P) =>
  z.strictObject({
    mode: z.literal('wildcard'),
    provider: z.literal(provider),
    credentials: ProviderCredentials[provider],
    /** certbot's `--dns-<p>-propagation-seconds`; the plugin's default when left out */
    propagationSeconds: propagationSeconds.optional(),
  });

/** One wildcard body per provider, in DNS_PROVIDERS' order: the provider list is written once (lib/cert-settings.ts). */
type WildcardInputs<T extends readonly DnsProvider[]> = { [K in keyof T]: T[K] extends DnsProvider ? ReturnType<typeof wildcardInput<T[K]>> : never };

/** PUT /api/settings/certificates: credentials are checked for the shape of the chosen provider. */
export const CertificateModeUpdate = z.union([
  z.strictObject({ mode: z.literal('per-name') }),
  z.discriminatedUnion('provider', DNS_PROVIDERS.map((provider) => wildcardInput(provider)) as unknown as WildcardInputs<typeof DNS_PROVIDERS>),
]);
export type CertificateModeUpdate = z.infer<typeof CertificateModeUpdate>;

/** GET /api/settings/certificates: the mode, the provider and which credential keys are set, never a value. */
export const CertificateModeView = z.object({
  mode: z.enum(['per-name', 'wildcard']),
  provider: z.enum(DNS_PROVIDERS).nullable(),
  lineage: z.string().nullable(),
  propagationSeconds: z.number().nullable(),
  credentialsSet: z.array(z.string()),
  providers: z.array(z.object({ name: z.enum(DNS_PROVIDERS), package: z.string(), credentialKeys: z.array(z.string()) })),
});
export type CertificateModeView = z.infer<typeof CertificateModeView>;
