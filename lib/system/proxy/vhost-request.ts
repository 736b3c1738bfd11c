// What the root helper accepts: one JSON document of vhost changes, checked field by field before
// anything is rendered. Names, domains, ports and site roots are all it takes; every path the
// vhost points at (certificates, client CA, help page, ACME webroot) comes from the helper's own
// root-owned configuration, so the request cannot name one. An app or site may name the certbot
// lineage it serves (`cert`, the wildcard of its parent domain): a domain name, never a path, which
// root looks up only in certbot's live directory of its configuration.
import { z } from 'zod';
import { isSiteDir } from '../site-storage/site-storage.ts';
import { isFqdn } from '../common/names.ts';
import { isVhostName } from './templates.ts';

/** Far above any real batch (start-up repair of every tunnel) and far below a memory problem. */
export const MAX_VHOST_CHANGES = 2000;

const fqdn = z.string().max(253).refine(isFqdn, 'must be a lowercase domain name');
const port = z.number().int().min(1).max(65535);

/**
 * Sent by the panel of the release before this one, which may still run while an upgrade has
 * restarted the helper: accepted and dropped, as no template reads it any more.
 */
const legacyPortalFqdn = { portalFqdn: fqdn.optional() };

/**
 * The lineage a vhost of `fqdn` may serve: its own, or its parent domain's, whose `*.<parent>` is
 * the one wildcard that covers it (one label, RFC 6125). No other lineage, so a vhost cannot
 * borrow a certificate that does not cover its name.
 */
export function isLineageFor(fqdn: string, cert: string): boolean {
  if (cert === fqdn) return true;
  const label = fqdn.slice(0, -(cert.length + 1));
  return fqdn.endsWith(`.${cert}`) && label.length > 0 && !label.includes('.');
}

const cert = { cert: fqdn.optional() };
const coversName = (s: { fqdn: string; cert?: string }) => s.cert === undefined || isLineageFor(s.fqdn, s.cert);
const coversNameIssue = { message: 'must be the name\'s own lineage or its parent domain\'s wildcard', path: ['cert'] };

/**
 * A shared app is one the `tunnels` server serves, which asks the portal: with the wildcard (a
 * `cert` other than its own name), or per name (no `cert`: the server's map finds its own).
 */
const sharedAndGuarded = (s: { fqdn: string; cert?: string; public?: true; shared?: true }) => !s.shared || (s.cert !== s.fqdn && !s.public);
const sharedIssue = { message: 'a shared app must not be public or name its own lineage', path: ['shared'] };

const withoutLegacy = <T extends { portalFqdn?: string }>({ portalFqdn: _, ...spec }: T) => spec;

function specSchema(sitesRoot: string) {
  const siteRoot = z.string().max(4096).refine((root) => isSiteDir(root, sitesRoot), `must be a site directory ${sitesRoot}/<site id>`);
  return z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('ip-panel') }),
    z.strictObject({ kind: z.literal('default') }),
    z.strictObject({ kind: z.literal('panel'), fqdn }),
    z.strictObject({ kind: z.literal('auth-portal'), fqdn }),
    z.strictObject({ kind: z.literal('tunnel-server'), fqdn }),
    z.strictObject({ kind: z.literal('app'), fqdn, port, public: z.literal(true).optional(), ...cert, shared: z.literal(true).optional(), ...legacyPortalFqdn })
      .refine(coversName, coversNameIssue)
      .refine(sharedAndGuarded, sharedIssue)
      .transform(withoutLegacy),
    // the shared apps' server loads the lineage of its own name (`*.<fqdn>` is in it), or per name (`sni`) root's map
    z.strictObject({ kind: z.literal('tunnels'), fqdn, sni: z.literal(true).optional() }),
    z.strictObject({ kind: z.literal('site'), fqdn, root: siteRoot, spaMode: z.boolean(), protected: z.boolean(), closed: z.literal(true).optional(), ...cert, ...legacyPortalFqdn }).refine(coversName, coversNameIssue).transform(withoutLegacy),
  ]);
}

/** The specs of a refresh (the helper's `vhosts-refresh` action). */
export function vhostSpecsSchema(sitesRoot: string) {
  return z.array(specSchema(sitesRoot)).min(1).max(MAX_VHOST_CHANGES);
}

/** A batch of vhost changes: what the root helper's `vhosts` action carries. */
export function vhostChangesSchema(sitesRoot: string) {
  const name = z.string().max(300).refine(isVhostName, 'must be a relay-panel vhost file name');
  const change = z.discriminatedUnion('op', [
    z.strictObject({ op: z.literal('put'), spec: specSchema(sitesRoot), enabled: z.boolean() }),
    z.strictObject({ op: z.enum(['enable', 'disable', 'remove']), name }),
  ]);
  return z.array(change).min(1).max(MAX_VHOST_CHANGES);
}
