import { randomUUID } from 'node:crypto';
import { isoNow } from '../clock.ts';
import { badRequest, validationFailed } from '../errors.ts';
import type { SiteRecord } from '../state/schemas.ts';
import { isFqdn } from '../system/common/names.ts';
import { CERTIFICATE_FAILED, DIRECTORY_FAILED, NGINX_FAILED, STATE_FAILED, runStepsOrFail, type Step } from '../steps.ts';
import { siteVhost } from '../host-state/vhost-specs.ts';
import { putSiteVhost, type SiteContext } from './context.ts';
import { writePlaceholder } from './files/placeholder.ts';
import { ensureCertificate } from '../certs/dns01/lineage.ts';
import { portalReaches, portalRefusal } from '../portal-reach.ts';
import { RESERVED_SITE_NAMES, type SiteCreate } from './schema.ts';

interface Claim {
  fqdn: string;
  domain: string;
  email: string;
  release: () => void;
}

/** The box's own names (the base domain and its reserved subdomains) can never be a custom site. */
function isBoxName(fqdn: string, domain: string): boolean {
  if (fqdn === domain) return true;
  const suffix = `.${domain}`;
  return fqdn.endsWith(suffix) && RESERVED_SITE_NAMES.has(fqdn.slice(0, -suffix.length));
}

/**
 * The spec's 400 rules in its order, checked and claimed in one synchronous run, so no other create
 * slips in between check and claim. Returns the claim's release.
 */
function claim(ctx: SiteContext, input: SiteCreate): Claim {
  const { domain, email } = ctx.config.value;
  if (!domain || !email) throw badRequest('Domain and email must be configured before creating sites');
  const { name, type } = input;
  if (type === 'custom' && !input.customDomain) throw badRequest('Custom domain is required for custom type sites');
  const sites = ctx.store.sites.value;
  const tunnels = ctx.store.tunnels.value;
  const fqdn = type === 'managed' ? `${name}.${domain}` : input.customDomain!;
  const claimed = ctx.reservations.holds(name, fqdn);
  if (claimed.name || sites.some((s) => s.name === name)) throw badRequest(`Site name '${name}' is already in use`);
  if (type === 'managed' && RESERVED_SITE_NAMES.has(name)) throw badRequest(`Name '${name}' is reserved`);
  if (type === 'managed' && tunnels.some((t) => t.subdomain === name)) throw badRequest(`Name '${name}' is already in use by a tunnel`);
  if (!isFqdn(fqdn)) {
    const field = type === 'managed' ? 'name' : 'customDomain';
    throw validationFailed([{ path: field, message: `${fqdn} is not a valid domain name` }]);
  }
  // no top-level domain is all digits: such a name is an IP address (or none), with no certificate
  if (/\.[0-9]+$/.test(fqdn)) throw validationFailed([{ path: 'customDomain', message: `${fqdn} is not a domain name: its last label is all digits (an IP address?)` }]);
  if (type === 'custom' && isBoxName(fqdn, domain)) throw badRequest(`Domain '${fqdn}' is reserved`);
  if (claimed.fqdn || sites.some((s) => s.fqdn === fqdn)) throw badRequest(`Domain '${fqdn}' is already in use by another site`);
  if (tunnels.some((t) => t.fqdn === fqdn)) throw badRequest(`Domain '${fqdn}' is already in use by a tunnel`);
  // after the spec's own rules, so each of their messages still wins
  if (input.autheliaProtected && !portalReaches(fqdn, domain)) throw badRequest(portalRefusal(fqdn, domain));
  return { fqdn, domain, email, release: ctx.reservations.claim(name, fqdn) };
}

/**
 * Managed: certificate, vhost, directory with its placeholder page, record, so the site is live
 * (and answers that page) when answered. Custom: directory with the page, and record; the
 * certificate and vhost come with verify-dns. A failure undoes the completed steps except the
 * certificate, which is kept for a retry (as tunnels do).
 */
export async function createSite(ctx: SiteContext, input: SiteCreate): Promise<SiteRecord> {
  const { fqdn, domain, email, release } = claim(ctx, input);
  const { certs, proxy, siteStorage } = ctx.system;
  const id = randomUUID();
  const managed = input.type === 'managed';
  const site: SiteRecord = {
    id,
    name: input.name,
    fqdn,
    type: input.type,
    spaMode: input.spaMode,
    autheliaProtected: input.autheliaProtected,
    allowedUsers: [],
    dnsVerified: managed,
    certIssued: managed,
    rootPath: siteStorage.dirOf(id),
    createdAt: isoNow(ctx.clock),
    totalSize: 0,
  };
  const live: Step[] = [
    // none to issue when the wildcard certificate covers the name
    { failure: CERTIFICATE_FAILED, run: () => ensureCertificate(certs, ctx.config.value, fqdn, email) },
    {
      failure: NGINX_FAILED,
      run: () => proxy.apply([putSiteVhost(site, domain, ctx.config.value)]),
      undo: () => proxy.apply([{ op: 'remove', name: proxy.vhostName(siteVhost(site, domain)) }]),
    },
  ];
  try {
    await runStepsOrFail('Failed to create site', [
      ...(managed ? live : []),
      { failure: DIRECTORY_FAILED, run: async () => void (await siteStorage.create(id)), undo: () => siteStorage.remove(id) },
      // a failure here is the panel's, not a bad upload: 500 like the directory's, whose undo takes the page too
      { failure: DIRECTORY_FAILED, run: () => writePlaceholder(site.rootPath, site.name) },
      { failure: STATE_FAILED, run: () => ctx.store.sites.edit((sites) => sites.put(site)) },
    ]);
  } finally {
    release();
  }
  return site;
}
