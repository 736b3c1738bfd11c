import { randomUUID } from 'node:crypto';
import type { IdentityRegistry } from '../auth/identity-registry.ts';
import type { Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import { AppError, badRequest } from '../errors.ts';
import type { PushGrantRecord, PushPolicyRecord, PushSessionRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import { isOpen, OpenWindowList } from './push-install-windows.ts';
import type { PushConfigUpdate, PushEnable, PushPolicyCreate, PushPolicyUpdate, PushRequest } from './push-schema.ts';

/** The audit list keeps this many pushes; older ones are dropped first. */
export const MAX_PUSH_SESSIONS = 1000;
/** What `agent-status` shows of the caller's own recent pushes. */
const AGENT_STATUS_SESSIONS = 20;

export interface PushInstallDeps {
  config: ConfigStore;
  store: Store;
  clock: Clock;
  identities: IdentityRegistry;
}

/**
 * Pushing plugin installs to agents: a global switch, policies naming the plugins and actions
 * allowed, per-agent enablement with an expiry, and every push recorded as a session. The agent
 * learns of its pushes by polling `agent-status`.
 */
export class PushInstallService {
  /** `{"grants":[...]}`: the windows open now, by agent label (GET …/grants). */
  readonly grantsJson: () => Uint8Array<ArrayBuffer>;

  constructor(private readonly deps: PushInstallDeps) {
    const windows = new OpenWindowList(deps.store.pushGrants, deps.clock);
    this.grantsJson = () => windows.json();
  }

  get config(): { enabled: boolean; defaultPolicyId: string | null } {
    return this.deps.config.value.plugins.pushInstall;
  }

  async updateConfig(patch: PushConfigUpdate): Promise<{ enabled: boolean; defaultPolicyId: string | null }> {
    if (patch.defaultPolicyId) this.policy(patch.defaultPolicyId);
    const plugins = this.deps.config.value.plugins;
    await this.deps.config.update({ plugins: { ...plugins, pushInstall: { ...plugins.pushInstall, ...patch } } });
    return this.config;
  }

  policies(): PushPolicyRecord[] {
    return [...this.deps.store.pushPolicies.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  policy(id: string): PushPolicyRecord {
    const policy = this.deps.store.pushPolicies.get(id);
    if (!policy) throw new AppError(404, `Policy '${id}' not found`);
    return policy;
  }

  createPolicy(input: PushPolicyCreate): Promise<PushPolicyRecord> {
    const now = this.#now();
    const policy: PushPolicyRecord = { id: randomUUID(), ...input, createdAt: now, updatedAt: now };
    return this.deps.store.pushPolicies.edit((draft) => {
      draft.put(policy);
      return policy;
    });
  }

  updatePolicy(id: string, patch: PushPolicyUpdate): Promise<PushPolicyRecord> {
    return this.deps.store.pushPolicies.edit((draft) => {
      const next = { ...this.policy(id), ...patch, updatedAt: this.#now() };
      draft.put(next);
      return next;
    });
  }

  /** 409 while it is the default policy or an unexpired enablement uses it. */
  async deletePolicy(id: string): Promise<void> {
    this.policy(id);
    const usedBy = [...this.deps.store.pushGrants.values()].find((g) => g.policyId === id && this.#live(g));
    if (this.config.defaultPolicyId === id || usedBy) throw new AppError(409, `Policy '${id}' is in use`);
    await this.deps.store.pushPolicies.edit((draft) => draft.delete(id));
  }

  async enable(label: string, input: PushEnable): Promise<PushGrantRecord> {
    if (!this.deps.identities.activeAgent(label)) throw new AppError(404, `Agent '${label}' not found`);
    const policyId = input.policyId ?? this.config.defaultPolicyId;
    if (!policyId) throw badRequest('A policyId is required: no default policy is set');
    this.policy(policyId);
    const now = this.deps.clock.now();
    const grant: PushGrantRecord = {
      label,
      policyId,
      enabledAt: new Date(now).toISOString(),
      expiresAt: new Date(now + input.durationMinutes * 60_000).toISOString(),
    };
    await this.deps.store.pushGrants.edit((draft) => draft.put(grant));
    return grant;
  }

  async disable(label: string): Promise<void> {
    const removed = await this.deps.store.pushGrants.edit((draft) => draft.delete(label));
    if (!removed) throw new AppError(404, `Push install is not enabled for agent '${label}'`);
  }

  /** Records a push after every check: switch on, agent enabled and unexpired, policy allowing it. */
  async push(label: string, request: PushRequest): Promise<PushSessionRecord> {
    if (!this.config.enabled) throw badRequest('Push install is disabled');
    const grant = this.#liveGrant(label);
    if (!grant) throw new AppError(403, `Push install is not enabled for agent '${label}'`);
    const policy = this.policy(grant.policyId);
    if (!policy.allowedPlugins.includes(request.packageName) || !policy.allowedActions.includes(request.action)) {
      throw new AppError(403, `Policy '${policy.name}' does not allow ${request.action} of ${request.packageName}`);
    }
    const session: PushSessionRecord = { id: randomUUID(), label, ...request, policyId: policy.id, status: 'requested', createdAt: this.#now() };
    await this.deps.store.pushSessions.edit((draft) => {
      draft.put(session);
      for (const old of draft.values()) {
        if (draft.size <= MAX_PUSH_SESSIONS) break;
        draft.delete(old.id);
      }
    });
    return session;
  }

  /** Newest first; only one agent's with `label`. */
  sessions(label?: string): PushSessionRecord[] {
    const all = [...this.deps.store.pushSessions.values()].reverse();
    return label === undefined ? all : all.filter((s) => s.label === label);
  }

  /** What the calling agent may know: whether push-install is on for it, until when, under which policy. */
  agentStatus(label: string) {
    const grant = this.config.enabled ? this.#liveGrant(label) : undefined;
    const policy = grant ? this.deps.store.pushPolicies.get(grant.policyId) : undefined;
    return {
      label,
      enabled: Boolean(grant && policy),
      expiresAt: grant && policy ? grant.expiresAt : null,
      policy: grant && policy ? { id: policy.id, name: policy.name, allowedPlugins: policy.allowedPlugins, allowedActions: policy.allowedActions } : null,
      sessions: this.sessions(label).slice(0, AGENT_STATUS_SESSIONS),
    };
  }

  #liveGrant(label: string): PushGrantRecord | undefined {
    const grant = this.deps.store.pushGrants.get(label);
    return grant && this.#live(grant) ? grant : undefined;
  }

  #live(grant: PushGrantRecord): boolean {
    return isOpen(grant, this.deps.clock.now());
  }

  #now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}
