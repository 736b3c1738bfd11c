// The DNS providers a wildcard certificate can be validated through: certbot's own DNS plugins as
// Debian packages them. Each entry says which package brings the plugin, how certbot selects it,
// the shape of its credentials (checked before anything is written) and the file the plugin reads,
// in the format its documentation gives.
import { isIP } from 'node:net';
import { z } from 'zod';

import { DNS_PROVIDERS, type DnsProvider } from '../../cert-settings.ts';

export { DNS_PROVIDERS, type DnsProvider };

/**
 * One INI value. certbot reads the file with configobj, where an unquoted `#` starts a comment, a
 * `,` makes a list, quotes are taken away and a line break starts another key; spaces at the ends
 * are stripped. No provider's token holds any of them, so none is allowed.
 */
const iniValue = z
  .string()
  .min(1)
  .max(1024)
  .regex(/^[^\s#,"'\\]+$/, 'must be one word without #, comma, quotes or backslash');
const token = iniValue;

/** dnspython's names of the TSIG algorithms; upper case, since the plugin looks them up case-sensitively (and falls back to HMAC-MD5 for any other spelling). */
const TSIG_ALGORITHMS = ['HMAC-MD5', 'HMAC-SHA1', 'HMAC-SHA224', 'HMAC-SHA256', 'HMAC-SHA384', 'HMAC-SHA512'] as const;

const ipAddress = z.string().max(45).refine((v) => isIP(v) !== 0, 'must be an IP address (the plugin refuses a host name)');

export const ProviderCredentials = {
  rfc2136: z.strictObject({
    server: ipAddress,
    port: z.number().int().min(1).max(65535).default(53),
    name: z.string().min(1).max(253).regex(/^[A-Za-z0-9._-]+$/, 'must be a TSIG key name'),
    secret: z.string().min(1).max(1024).regex(/^[A-Za-z0-9+/]+=*$/, 'must be the base64 TSIG secret'),
    algorithm: z.enum(TSIG_ALGORITHMS).default('HMAC-SHA256'),
  }),
  cloudflare: z.strictObject({ apiToken: token }),
  digitalocean: z.strictObject({ token }),
  route53: z.strictObject({
    accessKeyId: z.string().max(128).regex(/^[A-Z0-9]{16,128}$/, 'must be an AWS access key id'),
    secretAccessKey: iniValue,
  }),
  ovh: z.strictObject({
    endpoint: z.enum(['ovh-eu', 'ovh-ca', 'ovh-us', 'kimsufi-eu', 'kimsufi-ca', 'soyoustart-eu', 'soyoustart-ca']),
    applicationKey: token,
    applicationSecret: token,
    consumerKey: token,
  }),
  linode: z.strictObject({ key: token }),
  gandi: z.strictObject({ apiKey: token }),
  google: z.strictObject({
    // the service account's JSON key, as Google's console downloads it
    serviceAccountJson: z.string().min(2).max(16_384).refine(isServiceAccountKey, 'must be a service account key (JSON with type "service_account", client_email and private_key)'),
  }),
  dnsimple: z.strictObject({ token }),
} as const satisfies Record<DnsProvider, z.ZodType>;

export type CredentialsOf<P extends DnsProvider> = z.infer<(typeof ProviderCredentials)[P]>;

function isServiceAccountKey(text: string): boolean {
  try {
    const key = JSON.parse(text) as Record<string, unknown>;
    return key.type === 'service_account' && typeof key.client_email === 'string' && typeof key.private_key === 'string';
  } catch {
    return false;
  }
}

export interface ProviderSpec {
  /** the Debian package that brings the plugin */
  package: string;
  /** certbot's `--authenticator` (a third-party plugin such as gandi's has no `--dns-<p>` shortcut) */
  authenticator: string;
  /** the option naming the credentials file, or null when the plugin reads it from the environment */
  credentialsOption: string | null;
  /** the environment variable naming the file when there is no option */
  credentialsEnv?: string;
  /** `--<authenticator>-propagation-seconds`; null when the plugin waits on its own (route53 asks the API) */
  propagationOption: string | null;
}

const dnsPlugin = (p: string, pkg = `python3-certbot-dns-${p}`): ProviderSpec => ({
  package: pkg,
  authenticator: `dns-${p}`,
  credentialsOption: `--dns-${p}-credentials`,
  propagationOption: `--dns-${p}-propagation-seconds`,
});

export const PROVIDERS: Record<DnsProvider, ProviderSpec> = {
  rfc2136: dnsPlugin('rfc2136'),
  cloudflare: dnsPlugin('cloudflare'),
  digitalocean: dnsPlugin('digitalocean'),
  // boto3 reads the key from the AWS shared credentials file that this variable names
  route53: { package: 'python3-certbot-dns-route53', authenticator: 'dns-route53', credentialsOption: null, credentialsEnv: 'AWS_SHARED_CREDENTIALS_FILE', propagationOption: null },
  ovh: dnsPlugin('ovh'),
  linode: dnsPlugin('linode'),
  gandi: dnsPlugin('gandi'),
  // its credentials file is a service account's JSON key (lib/system/certs/dns-credentials-path.ts)
  google: dnsPlugin('google'),
  dnsimple: dnsPlugin('dnsimple'),
};

/** The keys of a provider's credentials as the API names them (GET says which are set, never their values). */
export function credentialKeys(provider: DnsProvider): string[] {
  return Object.keys(ProviderCredentials[provider].shape);
}
