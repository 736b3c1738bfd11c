// The spec's base agent capabilities. Ticket scopes and plugins add further names at run time
// (`services.ticketing.capabilityNames()`); these are the ones routes name in their access rules.

export const Capability = {
  TunnelsRead: 'tunnels:read',
  TunnelsWrite: 'tunnels:write',
  ServicesRead: 'services:read',
  ServicesWrite: 'services:write',
  SystemRead: 'system:read',
  SitesRead: 'sites:read',
  SitesWrite: 'sites:write',
} as const;

/** The spec's base agent capabilities; ticket scopes (and later plugins) add further ones. */
export const BASE_CAPABILITIES: readonly string[] = Object.values(Capability);
