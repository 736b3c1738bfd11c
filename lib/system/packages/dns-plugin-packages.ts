// The only packages the panel may have root install or remove: certbot's DNS plugins as Debian
// packages them (the wildcard mode's providers). The root helper's `dns-plugin` action takes a
// name from this list alone, matched exactly, so the panel's user cannot have root install
// anything else (a package's maintainer scripts run as root).
export const DNS_PLUGIN_PACKAGES = [
  'python3-certbot-dns-rfc2136',
  'python3-certbot-dns-cloudflare',
  'python3-certbot-dns-digitalocean',
  'python3-certbot-dns-route53',
  'python3-certbot-dns-ovh',
  'python3-certbot-dns-linode',
  'python3-certbot-dns-gandi',
  'python3-certbot-dns-google',
  'python3-certbot-dns-dnsimple',
] as const;
export type DnsPluginPackage = (typeof DNS_PLUGIN_PACKAGES)[number];

export function isDnsPluginPackage(name: string): name is DnsPluginPackage {
  return (DNS_PLUGIN_PACKAGES as readonly string[]).includes(name);
}
