// What certbot's environment carries at every run the panel causes (issuance, the certificates
// page's renew, the renewal timer's service). route53's plugin (boto3) has no credentials option
// that certbot would keep in a lineage's renewal configuration: it finds its key only through
// AWS_SHARED_CREDENTIALS_FILE, so a variable set for issuance alone leaves renewals without it.
// The variable names where the wildcard mode keeps route53's credentials
// (dns-credentials-path.ts, which the mode writes through); only boto3 reads it, so it is
// set whatever the provider, and a missing file is the same as none (renewal then fails with
// the plugin's words, as after a restore).
import { dnsCredentialsPath } from './dns-credentials-path.ts';

export const ROUTE53_CREDENTIALS_ENV = 'AWS_SHARED_CREDENTIALS_FILE';

export function renewalEnvironment(dataDir: string): Record<string, string> {
  return { [ROUTE53_CREDENTIALS_ENV]: dnsCredentialsPath(dataDir, 'route53') };
}
