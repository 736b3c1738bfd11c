// The only packages the panel may have root install or remove: certbot's DNS plugins as Debian
// packages them (the wildcard mode's providers). The root helper's `dns-plugin` action takes a
// name from this list alone, matched exactly, so the panel's user cannot have root install
// anything else (a package's maintainer scripts run as root).
import { DNS_PROVIDERS, type DnsProvider } from '../../cert-settings.ts';

export const DNS_PLUGIN_PACKAGES = DNS_PROVIDERS.map((provider) => `python3-certbot-dns-${provider}` as const);
export type DnsPluginPackage = `python3-certbot-dns-${DnsProvider}`;

export function isDnsPluginPackage(name: string): name is DnsPluginPackage {
  return (DNS_PLUGIN_PACKAGES as readonly string[]).includes(name);
}
