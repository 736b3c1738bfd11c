// Which site names the auth portal can protect. Its configuration has one session cookie domain,
// the base domain (lib/system/auth-portal/portal-files.ts), and Authelia 4.38's authz endpoint answers
// 400 for a host outside every cookie domain, which nginx's auth_request turns into a 500 for every
// visitor. So protection is only offered where the cookie reaches (docs/decisions.md, Sites).

/** The base domain itself or a name under it: where the portal's session cookie is sent. */
export function portalReaches(fqdn: string, domain: string | null): boolean {
  return domain !== null && (fqdn === domain || fqdn.endsWith(`.${domain}`));
}

/** The 400 answered when protection is asked for a name the portal cannot reach. */
export function portalRefusal(fqdn: string, domain: string | null): string {
  return `Portal protection is not available for '${fqdn}': the portal's session cookie covers only ${domain ? `'${domain}' and its subdomains` : 'the base domain'}`;
}
