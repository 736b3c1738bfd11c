// Where the wildcard mode keeps a DNS provider's credentials: one file per provider in `dns01/` of
// the data dir. Here, below both its users: lib/certs/dns01 writes the files, and every certbot run
// names route53's in its environment (renewal-env.ts), so the two cannot name different files.
import { join } from 'node:path';
import type { DnsProvider } from '../../cert-settings.ts';

/** What the provider's plugin expects to read: Google's a service account's JSON key, the others an INI file. */
const extension = (provider: DnsProvider): 'ini' | 'json' => (provider === 'google' ? 'json' : 'ini');

export function dnsCredentialsDir(dataDir: string): string {
  return join(dataDir, 'dns01');
}

export function dnsCredentialsPath(dataDir: string, provider: DnsProvider): string {
  return join(dnsCredentialsDir(dataDir), `${provider}.${extension(provider)}`);
}
