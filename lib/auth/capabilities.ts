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
