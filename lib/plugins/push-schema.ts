import { z } from 'zod';
import { DEFAULT_PUSH_ACTIONS, PUSH_ACTIONS } from '../state/schemas.ts';
import { IpEntry } from './ip-rules.ts';
import { PolicyId } from '../push-install-config.ts';

const PackageName = z.string().min(1).max(214).regex(/^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/, 'must be an npm package name');

/** Portlama's `{enabled?, defaultPolicy?}`; our older `defaultPolicyId` still names it (null: the `default` policy). */
export const PushConfigUpdate = z
  .object({ enabled: z.boolean().optional(), defaultPolicy: PolicyId.optional(), defaultPolicyId: PolicyId.nullable().optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'name enabled and/or defaultPolicy')
  .refine((b) => b.defaultPolicy === undefined || b.defaultPolicyId === undefined, 'name defaultPolicy or defaultPolicyId, not both');
export type PushConfigUpdate = z.infer<typeof PushConfigUpdate>;

const policyFields = {
  name: z.string().min(1).max(100),
  description: z.string().max(500),
  /** Empty: any package under `plugins.allowedScopes` (Portlama: empty allows any). */
  allowedPlugins: z.array(PackageName).max(100),
  /** Empty: any action (Portlama's rule). */
  allowedActions: z.array(z.enum(PUSH_ACTIONS)).max(PUSH_ACTIONS.length),
  /** Portlama's source-address rules for a push: a denied match refuses, a non-empty allow list must match. */
  allowedIps: z.array(IpEntry).max(100),
  deniedIps: z.array(IpEntry).max(100),
};

/** Portlama's: the id is the client's or the name made a slug. */
export const PushPolicyCreate = z
  .object({
    ...policyFields,
    id: PolicyId.optional(),
    description: policyFields.description.default(''),
    allowedPlugins: policyFields.allowedPlugins.default([]),
    allowedActions: policyFields.allowedActions.default([...DEFAULT_PUSH_ACTIONS]),
    allowedIps: policyFields.allowedIps.default([]),
    deniedIps: policyFields.deniedIps.default([]),
  })
  .strict();
export type PushPolicyCreate = z.infer<typeof PushPolicyCreate>;

export const PushPolicyUpdate = z
  .object(policyFields)
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'name at least one field');
export type PushPolicyUpdate = z.infer<typeof PushPolicyUpdate>;

export const PushPolicyParams = z.object({ id: PolicyId });
export type PushPolicyParams = z.infer<typeof PushPolicyParams>;

/** Portlama's 5 minutes to 8 hours: push-install is a window an admin opens, not a standing permission. */
export const PushEnable = z
  .object({ durationMinutes: z.number().int().min(5).max(8 * 60).default(60), policyId: PolicyId.optional() })
  .strict();
export type PushEnable = z.infer<typeof PushEnable>;

/** The package is needed for every action but `check-prerequisites` (Portlama's rule and message). */
export const PushRequest = z
  .object({ packageName: PackageName.optional(), action: z.enum(PUSH_ACTIONS).default('install') })
  .strict()
  .refine((b) => b.action === 'check-prerequisites' || b.packageName !== undefined, {
    message: 'packageName is required for install, update, and uninstall actions',
    path: ['packageName'],
  });
export type PushRequest = z.infer<typeof PushRequest>;

export const PushSessionsQuery = z.object({ label: z.string().max(64).optional() });
export type PushSessionsQuery = z.infer<typeof PushSessionsQuery>;
