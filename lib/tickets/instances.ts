import type { AgentIdentity, Identity } from '../auth/identity.ts';
import { isoNow, type Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { TicketInstanceRecord } from '../state/schemas.ts';
import type { AgentStanding } from './agent-standing.ts';
import { actsFor } from './caller.ts';
import { changeOne, changeWhere } from './collection-ops.ts';
import { limitReached } from './errors.ts';
import { HeartbeatBuffer } from './heartbeat-buffer.ts';
import { isPublicHost } from '../host-class.ts';
import { newInstanceId } from './ids.ts';
import type { TicketIndexes } from './indexes.ts';
import { removeInstancesWhere } from './instance-removal.ts';
import { instanceScopeOf } from './instance-scope.ts';
import { INSTANCE_HEARTBEAT_WRITE_MS, INSTANCE_REMOVED_AFTER_MS, INSTANCE_STALE_AFTER_MS, MAX_INSTANCES } from './limits.ts';
import type { InstanceRegistration } from './schema.ts';

export interface RegisteredInstance {
  created: boolean;
  instanceId: string;
  instanceScope: string;
}

// Not found and not yours look the same, so an agent cannot probe other agents' instance ids.
const instanceNotFound = () => new AppError(404, 'Instance not found');

/** Running offerings of one capability by one agent, kept alive by heartbeats. */
export class InstanceRegistry {
  /**
   * Heartbeats newer than the stored lastHeartbeat of an active instance: one that changes nothing
   * else writes once the stored time is a minute old, so after a crash an instance looks at most a
   * minute older than it is (it goes stale after five). The liveness check and the listing use them.
   */
  readonly #heartbeats: HeartbeatBuffer<TicketInstanceRecord>;

  constructor(
    private readonly indexes: TicketIndexes,
    private readonly standing: AgentStanding,
    private readonly clock: Clock,
    /** The relay's own domain (null before onboarding): direct hosts may not name it or its subdomains. */
    private readonly relayDomain: () => string | null,
  ) {
    this.#heartbeats = new HeartbeatBuffer(indexes.store.ticketInstances, {
      key: (instance) => instance.instanceId,
      stored: (instance) => instance.lastHeartbeat,
      set: (instance, iso) => ({ ...instance, lastHeartbeat: iso }),
      writeEveryMs: INSTANCE_HEARTBEAT_WRITE_MS,
      writable: (instance) => instance.status !== 'dead',
    });
  }

  /** A scope and agent pair has one instance: registering again refreshes it in place. */
  async register(owner: AgentIdentity, input: InstanceRegistration): Promise<RegisteredInstance> {
    const host = input.transport.direct?.host;
    if (host !== undefined && !isPublicHost(host, this.relayDomain())) throw new AppError(400, 'Private or reserved address in transport.direct.host');
    if (!owner.capabilities.has(input.scope)) throw new AppError(403, 'Insufficient certificate capability');
    if (!this.indexes.scopeByCapability().has(input.scope)) throw new AppError(404, 'Scope not found');
    const now = isoNow(this.clock);
    return this.indexes.store.ticketInstances.edit((instances) => {
      const existing = [...instances.values()].find((instance) => instance.agentLabel === owner.label && instance.scope === input.scope);
      if (existing) {
        instances.put({ ...existing, transport: input.transport, status: 'active', lastHeartbeat: now });
        this.#heartbeats.forget(existing.instanceId);
        return { created: false, instanceId: existing.instanceId, instanceScope: existing.instanceScope };
      }
      if (instances.size >= MAX_INSTANCES) throw limitReached('Instance');
      const instanceId = newInstanceId();
      const instanceScope = instanceScopeOf(input.scope, instanceId);
      instances.put({
        instanceId,
        instanceScope,
        scope: input.scope,
        agentLabel: owner.label,
        transport: input.transport,
        status: 'active',
        registeredAt: now,
        lastHeartbeat: now,
      });
      return { created: true, instanceId, instanceScope };
    });
  }

  async remove(caller: Identity, instanceId: string): Promise<void> {
    this.#ownedBy(caller, instanceId);
    await removeInstancesWhere(this.indexes, (instance) => instance.instanceId === instanceId);
    this.#heartbeats.forget(instanceId);
  }

  /** Re-checks the owner every time: a revoked owner or a withdrawn capability ends the instance. */
  async heartbeat(caller: Identity, instanceId: string): Promise<void> {
    const instance = this.#ownedBy(caller, instanceId);
    if (instance.status === 'dead') throw instanceNotFound();
    const { ticketInstances } = this.indexes.store;
    if (!this.standing.holds(instance.agentLabel, instance.scope)) {
      this.#heartbeats.forget(instanceId);
      await changeOne(ticketInstances, instanceId, (record) => ({ ...record, status: 'dead' as const }));
      throw instanceNotFound();
    }
    const now = this.clock.now();
    if (instance.status === 'active') return this.#heartbeats.beat(instance, now);
    this.#heartbeats.forget(instanceId);
    const lastHeartbeat = new Date(now).toISOString();
    const revived = await changeOne(ticketInstances, instanceId, (record) => {
      if (record.status === 'dead') throw instanceNotFound();
      return { ...record, status: 'active' as const, lastHeartbeat };
    });
    if (!revived) throw instanceNotFound();
  }

  /** The stored instances with the latest heartbeat of each (the admin listing). */
  list(): readonly TicketInstanceRecord[] {
    return this.#heartbeats.merged(this.indexes.store.ticketInstances.value);
  }

  /** The liveness check: stale after 5 minutes without a heartbeat, removed with its dependents after 1 hour. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const silentFor = (instance: TicketInstanceRecord) => now - (this.#heartbeats.latest(instance.instanceId) ?? Date.parse(instance.lastHeartbeat));
    await Promise.all([
      removeInstancesWhere(this.indexes, (instance) => silentFor(instance) >= INSTANCE_REMOVED_AFTER_MS),
      changeWhere(
        this.indexes.store.ticketInstances,
        (instance) => instance.status === 'active' && silentFor(instance) >= INSTANCE_STALE_AFTER_MS,
        (instance) => ({ ...instance, status: 'stale' as const }),
      ),
    ]);
    const live = this.indexes.instanceById();
    this.#heartbeats.forgetWhere((instanceId) => !live.has(instanceId));
  }

  /** Writes the heartbeats held in memory (on shutdown). */
  persistHeartbeats(): Promise<void> {
    return this.#heartbeats.flush();
  }

  #ownedBy(caller: Identity, instanceId: string): TicketInstanceRecord {
    const instance = this.indexes.instanceById().get(instanceId);
    if (!instance || !actsFor(caller, instance.agentLabel)) throw instanceNotFound();
    return instance;
  }
}
