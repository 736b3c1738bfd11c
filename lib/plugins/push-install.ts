import { randomUUID } from 'node:crypto';
import type { IdentityRegistry } from '../auth/identity-registry.ts';
import type { Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import { AppError, agentCertificateNotFound, badRequest } from '../errors.ts';
import type { PushGrantRecord, PushPolicyRecord, PushSessionRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import { sourceAllowed } from './ip-rules.ts';
import { isOpen, OpenWindowList } from './push-install-windows.ts';
import { DEFAULT_POLICY_ID, type PushInstallConfig } from '../push-install-config.ts';
import { PushPolicies } from './push-policies.ts';
import type { PushConfigUpdate, PushEnable, PushRequest } from './push-schema.ts';

/** The audit list keeps this many pushes; older ones are dropped first. */
export const MAX_PUSH_SESSIONS = 1000;
/** What `agent-status` shows of the caller's own recent pushes. */
const AGENT_STATUS_SESSIONS = 20;
const NOT_ENABLED = 'Push install is not enabled globally';

/** Portlama's rule: an empty list allows any. */
const allows = <T>(list: readonly T[], item: T) => list.length === 0 || list.includes(item);

export interface PushInstallDeps {
  config: ConfigStore;
  store: Store;
  clock: Clock;
  identities: IdentityRegistry;
}

/**
 * Pushing plugin installs to agents: a global switch, policies naming the plugins and actions
 * allowed (push-policies.ts), per-agent enablement with an expiry, and every push recorded as a
 * session. The agent learns of its pushes by polling `agent-status`.
 */
export class PushInstallService {
  /** `{"grants":[...]}`: the windows open now, by agent label (GET …/grants). */
  readonly grantsJson: () => Uint8Array<ArrayBuffer>;

  readonly policies: PushPolicies;

  constructor(private readonly deps: PushInstallDeps) {
    this.policies = new PushPolicies(deps.store.pushPolicies, deps.clock);
    const windows = new OpenWindowList(deps.store.pushGrants, deps.clock);
    this.grantsJson = () => windows.json();
  }

  /** Portlama's GET …/config: the switch, the default policy's id and the policies; `defaultPolicyId` for our older clients. */
  get config() {
    const { enabled, defaultPolicy } = this.deps.config.value.plugins.pushInstall;
    return { enabled, defaultPolicy, defaultPolicyId: defaultPolicy, policies: this.policies.list() };
  }

  /** An unknown default policy is 400 (Portlama's status; it names the request's field). */
  async updateConfig({ enabled, defaultPolicy, defaultPolicyId }: PushConfigUpdate) {
    const named = defaultPolicy ?? (defaultPolicyId === null ? DEFAULT_POLICY_ID : defaultPolicyId);
    if (named !== undefined && !this.policies.find(named)) throw badRequest(`Policy "${named}" not found`);
    await this.#setConfig({ ...(enabled === undefined ? {} : { enabled }), ...(named === undefined ? {} : { defaultPolicy: named }) });
    return this.config;
  }

  /** Deleting the configured default policy makes `default` the default again (Portlama's rule). */
  async deletePolicy(id: string): Promise<void> {
    await this.policies.delete(id, (policyId) => [...this.deps.store.pushGrants.values()].some((g) => g.policyId === policyId && this.#live(g)));
    if (this.deps.config.value.plugins.pushInstall.defaultPolicy === id) await this.#setConfig({ defaultPolicy: DEFAULT_POLICY_ID });
  }

  /** Portlama's order of checks: the switch (400), the policy (404), the agent (404). */
  async enable(label: string, input: PushEnable): Promise<PushGrantRecord> {
    const { enabled, defaultPolicy } = this.deps.config.value.plugins.pushInstall;
    if (!enabled) throw badRequest(NOT_ENABLED);
    const policyId = this.policies.get(input.policyId ?? defaultPolicy).id;
    if (!this.deps.identities.activeAgent(label)) throw agentCertificateNotFound(label);
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

  /** Ends the agent's window if it has one; 404 only for an agent that is not there (Portlama's rule). */
  async disable(label: string): Promise<void> {
    const removed = await this.deps.store.pushGrants.edit((draft) => draft.delete(label));
    if (!removed && !this.deps.identities.activeAgent(label)) throw agentCertificateNotFound(label);
  }

  /** Records a push after every check, with Portlama's statuses and messages: switch on, window open, policy allowing it and the source address. */
  async push(label: string, request: PushRequest, source?: string): Promise<PushSessionRecord> {
    if (!this.deps.config.value.plugins.pushInstall.enabled) throw badRequest(NOT_ENABLED);
    if (!this.deps.identities.activeAgent(label)) throw agentCertificateNotFound(label);
    const grant = this.#liveGrant(label);
    if (!grant) throw new AppError(403, `Push install access not enabled for agent "${label}"`);
    const policy = this.policies.find(grant.policyId);
    if (!policy) throw new AppError(500, `Policy "${grant.policyId}" not found in push install configuration`);
    if (!sourceAllowed(source, policy.allowedIps, policy.deniedIps)) throw new AppError(403, 'Source IP is not allowed');
    if (!allows(policy.allowedActions, request.action)) throw new AppError(403, `Action "${request.action}" is not allowed by the assigned policy`);
    const { packageName = null, action } = request;
    if (packageName !== null && !this.#allowsPackage(policy, packageName)) throw new AppError(403, `Package "${packageName}" is not allowed by the assigned policy`);
    const session: PushSessionRecord = { id: randomUUID(), label, packageName, action, policyId: policy.id, status: 'requested', createdAt: this.#now() };
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

  /** What the calling agent may know: whether push-install is on for it, until when, under which policy (ours and Portlama's names). */
  agentStatus(label: string) {
    const grant = this.deps.config.value.plugins.pushInstall.enabled ? this.#liveGrant(label) : undefined;
    const policy = grant ? this.policies.find(grant.policyId) : undefined;
    const on = grant && policy ? { grant, policy } : undefined;
    return {
      label,
      enabled: Boolean(on),
      expiresAt: on ? on.grant.expiresAt : null,
      policy: on ? { id: on.policy.id, name: on.policy.name, allowedPlugins: on.policy.allowedPlugins, allowedActions: on.policy.allowedActions } : null,
      sessions: this.sessions(label).slice(0, AGENT_STATUS_SESSIONS),
      pushInstallEnabled: Boolean(on),
      pushInstallEnabledUntil: on ? on.grant.expiresAt : null,
      pushInstallPolicy: on ? on.policy.id : null,
    };
  }

  /** An empty list allows any package under `plugins.allowedScopes`: Portlama's "empty allows any", within what install allows. */
  #allowsPackage(policy: PushPolicyRecord, packageName: string): boolean {
    if (policy.allowedPlugins.length > 0) return policy.allowedPlugins.includes(packageName);
    const scope = packageName.startsWith('@') ? packageName.slice(0, packageName.indexOf('/')) : undefined;
    return scope !== undefined && this.deps.config.value.plugins.allowedScopes.includes(scope);
  }

  #setConfig(patch: Partial<PushInstallConfig>): Promise<unknown> {
    const plugins = this.deps.config.value.plugins;
    return this.deps.config.update({ plugins: { ...plugins, pushInstall: { ...plugins.pushInstall, ...patch } } });
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
