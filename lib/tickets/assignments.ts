import { isoNow, type Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { TicketAssignmentRecord } from '../state/schemas.ts';
import { pairKey } from '../state/store.ts';
import type { AgentStanding } from './agent-standing.ts';
import type { TicketIndexes } from './indexes.ts';
import { parseInstanceScope } from './instance-scope.ts';
import type { AssignmentCreate, AssignmentFilter } from './schema.ts';

export interface AssignmentResult {
  created: boolean;
  assignment: TicketAssignmentRecord;
}

/** Admin grants letting a target agent receive tickets for one instance. */
export class AssignmentBook {
  constructor(
    private readonly indexes: TicketIndexes,
    private readonly standing: AgentStanding,
    private readonly clock: Clock,
  ) {}

  /** Checks in the spec's order: agent exists and is not revoked, holds the base capability, instance alive. */
  async create(input: AssignmentCreate, assignedBy: string): Promise<AssignmentResult> {
    if (this.standing.isRevoked(input.agentLabel)) throw new AppError(404, 'Agent not found');
    const { capability, instanceId } = parseInstanceScope(input.instanceScope);
    if (!this.standing.holds(input.agentLabel, capability)) throw new AppError(400, 'Agent missing capability');
    const instance = this.indexes.instanceById().get(instanceId);
    if (!instance || instance.instanceScope !== input.instanceScope || instance.status === 'dead') {
      throw new AppError(404, 'Instance not found');
    }
    const assignment = { ...input, assignedAt: isoNow(this.clock), assignedBy };
    return this.indexes.store.ticketAssignments.edit((assignments) => {
      const existing = assignments.get(pairKey(input.agentLabel, input.instanceScope));
      if (existing) return { created: false, assignment: existing };
      assignments.put(assignment);
      return { created: true, assignment };
    });
  }

  async remove(agentLabel: string, instanceScope: string): Promise<void> {
    if (!this.indexes.isAssigned(agentLabel, instanceScope)) throw new AppError(404, 'Assignment not found');
    await this.indexes.store.ticketAssignments.edit((assignments) => void assignments.delete(pairKey(agentLabel, instanceScope)));
  }

  list(filter: AssignmentFilter): TicketAssignmentRecord[] {
    return this.indexes.store.ticketAssignments.value.filter(
      (a) =>
        (filter.agentLabel === undefined || a.agentLabel === filter.agentLabel) &&
        (filter.instanceScope === undefined || a.instanceScope === filter.instanceScope),
    );
  }
}
