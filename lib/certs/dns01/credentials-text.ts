// The credentials file each plugin reads, rendered from checked credentials (providers.ts): the
// INI keys of its documentation, the AWS shared credentials file for route53, the service
// account's JSON for google.
import { ProviderCredentials, type CredentialsOf, type DnsProvider } from './providers.ts';

const HEADER = '# managed by relay-panel: replaced when the certificate settings change\n';

const ini = (pairs: Array<[string, string | number]>) => HEADER + pairs.map(([k, v]) => `${k} = ${v}\n`).join('');

type Renderers = { [P in DnsProvider]: (c: CredentialsOf<P>) => string };

const RENDER: Renderers = {
  rfc2136: (c) => ini([['dns_rfc2136_server', c.server], ['dns_rfc2136_port', c.port], ['dns_rfc2136_name', c.name], ['dns_rfc2136_secret', c.secret], ['dns_rfc2136_algorithm', c.algorithm]]),
  cloudflare: (c) => ini([['dns_cloudflare_api_token', c.apiToken]]),
  digitalocean: (c) => ini([['dns_digitalocean_token', c.token]]),
  route53: (c) => `${HEADER}[default]\naws_access_key_id = ${c.accessKeyId}\naws_secret_access_key = ${c.secretAccessKey}\n`,
  ovh: (c) => ini([['dns_ovh_endpoint', c.endpoint], ['dns_ovh_application_key', c.applicationKey], ['dns_ovh_application_secret', c.applicationSecret], ['dns_ovh_consumer_key', c.consumerKey]]),
  // API v4 (the plugin's default is v3 for older keys)
  linode: (c) => ini([['dns_linode_key', c.key], ['dns_linode_version', 4]]),
  // Debian 12's plugin (1.4) reads an API key; personal access tokens came in 1.5
  gandi: (c) => ini([['dns_gandi_api_key', c.apiKey]]),
  // the key file as Google gives it, re-serialized so it is exactly one JSON document
  google: (c) => `${JSON.stringify(JSON.parse(c.serviceAccountJson), null, 2)}\n`,
  dnsimple: (c) => ini([['dns_dnsimple_token', c.token]]),
};

/** Checks `credentials` against the provider's shape (throws zod's error) and renders its file. */
export function credentialsText(provider: DnsProvider, credentials: unknown): string {
  const checked = ProviderCredentials[provider].parse(credentials);
  return (RENDER[provider] as (c: unknown) => string)(checked);
}
