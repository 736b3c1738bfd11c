import type { IdentityRegistry } from '../auth/identity-registry.ts';

/**
 * Whether some other agent (a ticket's target, an instance's owner) may still take part, read from
 * the agent registry in memory. An agent missing from the registry counts as revoked.
 */
export class AgentStanding {
  constructor(private readonly identities: IdentityRegistry) {}

  isRevoked(label: string): boolean {
    return this.identities.activeAgent(label) === undefined;
  }

  holds(label: string, capability: string): boolean {
    return this.identities.activeAgent(label)?.capabilitySet.has(capability) ?? false;
  }
}
