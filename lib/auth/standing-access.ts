import type { Identity } from './identity.ts';
import type { IdentityRegistry } from './identity-registry.ts';

/**
 * Whether a long-lived connection's caller still has `capability`: null once an agent's certificate
 * was revoked or superseded or it lost the capability (an admin's once revoked); else the agent's
 * record as it stands (its allowedSites now). Live feeds ask before each message instead of
 * trusting the handshake's identity.
 */
export function standingAccess(identity: Identity, identities: Pick<IdentityRegistry, 'agentPresenting' | 'isRevoked'>, capability: string): () => { role: 'admin' } | { role: 'agent'; allowedSites: readonly string[] } | null {
  if (identity.role === 'agent') {
    return () => {
      const { agent } = identities.agentPresenting(identity.label, identity.serial);
      return agent?.capabilitySet.has(capability) ? { role: 'agent', allowedSites: agent.allowedSites } : null;
    };
  }
  return () => (identity.role === 'admin' && !(identity.serial && identities.isRevoked(identity.serial)) ? { role: 'admin' } : null);
}
