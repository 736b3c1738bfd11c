import type { TunnelContext } from './context.ts';

/** A stored tunnel or a create still running its steps holds this subdomain or this FQDN. */
export function tunnelHolds(ctx: Pick<TunnelContext, 'store' | 'reservations'>, subdomain: string, fqdn: string): boolean {
  if (ctx.reservations.hasSubdomain(subdomain)) return true;
  return ctx.store.tunnels.value.some((t) => t.subdomain === subdomain || t.fqdn === fqdn);
}

/**
 * A site is served at this FQDN: a managed site's is `<name>.<domain>`, so its name is covered; a
 * custom site's name is a label, not a subdomain.
 */
export function siteHolds(ctx: Pick<TunnelContext, 'store'>, fqdn: string): boolean {
  return ctx.store.sites.value.some((s) => s.fqdn === fqdn);
}
