import type { TunnelContext } from './context.ts';

/** A stored tunnel or a create still running its steps holds this subdomain or this FQDN. */
export function tunnelHolds(ctx: Pick<TunnelContext, 'store' | 'reservations'>, subdomain: string, fqdn: string): boolean {
  if (ctx.reservations.hasSubdomain(subdomain)) return true;
  return ctx.store.tunnels.value.some((t) => t.subdomain === subdomain || t.fqdn === fqdn);
}

/** A managed site is served at this name, or a site at this FQDN (a custom site's name is a label, not a subdomain). */
export function siteHolds(ctx: Pick<TunnelContext, 'store'>, name: string, fqdn: string): boolean {
  return ctx.store.sites.value.some((s) => (s.type === 'managed' && s.name === name) || s.fqdn === fqdn);
}
