import type { TunnelContext } from './context.ts';

/** A stored tunnel or a create still running its steps holds this subdomain or this FQDN. */
export function tunnelHolds(ctx: Pick<TunnelContext, 'store' | 'reservations'>, subdomain: string, fqdn: string): boolean {
  if (ctx.reservations.hasSubdomain(subdomain)) return true;
  return ctx.store.tunnels.value.some((t) => t.subdomain === subdomain || t.fqdn === fqdn);
}

/** A site uses this name or this FQDN. */
export function siteHolds(ctx: Pick<TunnelContext, 'store'>, name: string, fqdn: string): boolean {
  return ctx.store.sites.value.some((s) => s.name === name || s.fqdn === fqdn);
}
