/** Capabilities every agent certificate can be granted; plugins and ticket scopes add more at run time. */
export const BASE_AGENT_CAPABILITIES = [
  'tunnels:read',
  'tunnels:write',
  'services:read',
  'services:write',
  'system:read',
  'sites:read',
  'sites:write',
] as const;
