import type { Clock } from '../clock.ts';
import { AppError, badRequest } from '../errors.ts';
import type { RecordCollection } from '../state/record-collection.ts';
import { DEFAULT_PUSH_ACTIONS, type PushPolicyRecord } from '../state/schemas.ts';
import { DEFAULT_POLICY_ID } from '../push-install-config.ts';
import type { PushPolicyCreate, PushPolicyUpdate } from './push-schema.ts';

const DEFAULT_POLICY = { id: DEFAULT_POLICY_ID, name: 'Default', description: 'Standard push install policy' } as const;

/** Portlama's ids: the name in lowercase, runs of anything else made one hyphen. */
const slugify = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/**
 * The push-install policies, Portlama's model: ids chosen by the client or made from the name,
 * and a `default` policy that always exists. A store without it (a new box, or one from before
 * the address rules) reads the built-in one, written on its first change, so nothing is written at start.
 */
export class PushPolicies {
  /** The built-in default's timestamps: when this panel started, until it is first changed. */
  readonly #builtIn: PushPolicyRecord;

  constructor(
    private readonly records: RecordCollection<PushPolicyRecord>,
    private readonly clock: Clock,
  ) {
    const now = this.#now();
    this.#builtIn = { ...DEFAULT_POLICY, allowedPlugins: [], allowedActions: [...DEFAULT_PUSH_ACTIONS], allowedIps: [], deniedIps: [], createdAt: now, updatedAt: now };
  }

  /** By name, the default among them. */
  list(): PushPolicyRecord[] {
    const stored = [...this.records.values()];
    const all = this.records.has(DEFAULT_POLICY_ID) ? stored : [this.#builtIn, ...stored];
    return all.sort((a, b) => a.name.localeCompare(b.name));
  }

  find(id: string): PushPolicyRecord | undefined {
    return this.records.get(id) ?? (id === DEFAULT_POLICY_ID ? this.#builtIn : undefined);
  }

  /** 404 with Portlama's message. */
  get(id: string): PushPolicyRecord {
    const policy = this.find(id);
    if (!policy) throw new AppError(404, `Policy "${id}" not found`);
    return policy;
  }

  create({ id: given, ...fields }: PushPolicyCreate): Promise<PushPolicyRecord> {
    const id = given ?? slugify(fields.name);
    if (!id) throw badRequest('Policy name cannot be empty');
    const now = this.#now();
    const policy: PushPolicyRecord = { id, ...fields, createdAt: now, updatedAt: now };
    return this.records.edit((draft) => {
      if (this.find(id)) throw new AppError(409, `Policy "${id}" already exists`);
      draft.put(policy);
      return policy;
    });
  }

  update(id: string, patch: PushPolicyUpdate): Promise<PushPolicyRecord> {
    return this.records.edit((draft) => {
      const next = { ...this.get(id), ...patch, updatedAt: this.#now() };
      draft.put(next);
      return next;
    });
  }

  /** 400 for the default (Portlama's rule and message); 409 while `inUse` says an unexpired enablement names it (ours). */
  async delete(id: string, inUse: (id: string) => boolean): Promise<void> {
    if (id === DEFAULT_POLICY_ID) throw badRequest('Cannot delete the default policy');
    await this.records.edit((draft) => {
      this.get(id);
      if (inUse(id)) throw new AppError(409, `Policy "${id}" is in use`);
      draft.delete(id);
    });
  }

  #now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}
