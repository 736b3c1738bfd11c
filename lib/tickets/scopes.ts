import { isoNow, type Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { TicketAssignmentRecord, TicketInstanceRecord, TicketScopeRecord } from '../state/schemas.ts';
import { removeWhere } from './collection-ops.ts';
import type { TicketIndexes } from './indexes.ts';
import { removeInstancesWhere } from './instance-removal.ts';
import type { InstanceRegistry } from './instances.ts';
import type { ScopeRegistration } from './schema.ts';

export interface ScopeListing {
  scopes: readonly TicketScopeRecord[];
  instances: readonly TicketInstanceRecord[];
  assignments: readonly TicketAssignmentRecord[];
}

/** Admin-registered capability sets; their capability names form the valid capability set. */
export class ScopeRegistry {
  constructor(
    private readonly indexes: TicketIndexes,
    private readonly instances: Pick<InstanceRegistry, 'list'>,
    private readonly clock: Clock,
  ) {}

  async register(input: ScopeRegistration): Promise<string[]> {
    const record: TicketScopeRecord = { ...input, registeredAt: isoNow(this.clock) };
    await this.indexes.store.ticketScopes.edit((scopes) => {
      if (scopes.has(input.name)) throw new AppError(409, 'Scope already registered');
      // Two scopes declaring one capability would make deleting either silently revoke it for the other.
      const taken = input.scopes.find((capability) => this.indexes.scopeByCapability().has(capability.name));
      if (taken) throw new AppError(409, `Capability '${taken.name}' is already registered`);
      scopes.put(record);
    });
    return input.scopes.map((capability) => capability.name);
  }

  list(): ScopeListing {
    const { store } = this.indexes;
    return { scopes: store.ticketScopes.value, instances: this.instances.list(), assignments: store.ticketAssignments.value };
  }

  /** Also removes the instances of its capabilities, which could no longer be registered or heartbeat. */
  async remove(name: string): Promise<void> {
    const scope = this.indexes.scopeByName().get(name);
    if (!scope) throw new AppError(404, 'Scope not found');
    const capabilities = new Set(scope.scopes.map((capability) => capability.name));
    await Promise.all([
      removeWhere(this.indexes.store.ticketScopes, (candidate) => candidate.name === name),
      removeInstancesWhere(this.indexes, (instance) => capabilities.has(instance.scope)),
    ]);
  }
}
