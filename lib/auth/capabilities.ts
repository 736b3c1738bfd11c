/** The spec's base agent capabilities; ticket scopes (and later plugins) add further ones. */
export const BASE_CAPABILITIES = [
  'tunnels:read',
  'tunnels:write',
  'services:read',
  'services:write',
  'system:read',
  'sites:read',
  'sites:write',
] as const;
