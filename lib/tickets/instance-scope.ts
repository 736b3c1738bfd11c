// `<scope>:<action>:<instanceId>`: the capability an assignment grants on one instance.

export const instanceScopeOf = (capability: string, instanceId: string) => `${capability}:${instanceId}`;

export function parseInstanceScope(instanceScope: string): { capability: string; instanceId: string } {
  const cut = instanceScope.lastIndexOf(':');
  return { capability: instanceScope.slice(0, cut), instanceId: instanceScope.slice(cut + 1) };
}
