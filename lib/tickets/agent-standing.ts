import type { IdentityRegistry } from '../auth/identity-registry.ts';

/**
 * Whether some other agent (a ticket's target, an instance's owner) may still take part, read from
 * the agent registry in memory. An agent missing from the registry counts as revoked.
 */
export class AgentStanding {
  constructor(private readonly identities: IdentityRegistry) {}

  isRevoked(label: string): boolean {
    const agent = this.identities.agent(label);
    return !agent || agent.revokedAt !== null || this.identities.isRevoked(agent.serial);
  }

  holds(label: string, capability: string): boolean {
    return !this.isRevoked(label) && this.identities.agent(label)!.capabilitySet.has(capability);
  }
}
