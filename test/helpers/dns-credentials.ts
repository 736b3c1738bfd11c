// Credentials of the right shape for every DNS provider, with the characters a credentials file must
// carry through unchanged (`+`, `/`, `=` in secrets, a JSON service account): for the schema's tests
// and for the files certbot's plugins read.
import type { DnsProvider } from '../../lib/certs/dns01/providers.ts';

export const SAMPLE_SECRET = 'c2VjcmV0K2tleS9mb3I9dGVzdHM=';
export const SAMPLE_SERVICE_ACCOUNT = JSON.stringify({ type: 'service_account', client_email: 'certbot@p.iam.gserviceaccount.com', private_key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n' });

export const SAMPLE_CREDENTIALS: Record<DnsProvider, Record<string, unknown>> = {
  rfc2136: { server: '127.0.0.1', port: 15353, name: 'certbot-key', secret: SAMPLE_SECRET, algorithm: 'HMAC-SHA256' },
  cloudflare: { apiToken: '0123456789abcdef0123456789abcdef01234567' },
  digitalocean: { token: 'dop_v1_0123456789abcdef' },
  route53: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
  ovh: { endpoint: 'ovh-eu', applicationKey: 'MDAwMDAwMDAwMDAw', applicationSecret: 'MDAwMDAw+MDAw/MDAw=', consumerKey: 'MDAwMDAwMDAwMDAwMDAw' },
  linode: { key: '0123456789abcdef' },
  gandi: { apiKey: 'gandi-api-key-0123' },
  google: { serviceAccountJson: SAMPLE_SERVICE_ACCOUNT },
  dnsimple: { token: 'dnsimple-token-0123' },
};
