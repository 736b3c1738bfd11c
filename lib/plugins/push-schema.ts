import { z } from 'zod';
import { PUSH_ACTIONS } from '../state/schemas.ts';

const PackageName = z.string().min(1).max(214).regex(/^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/, 'must be an npm package name');
const PolicyId = z.string().max(64).regex(/^[a-z0-9-]+$/, 'must be a policy id');

export const PushConfigUpdate = z
  .object({ enabled: z.boolean().optional(), defaultPolicyId: PolicyId.nullable().optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'name enabled and/or defaultPolicyId');
export type PushConfigUpdate = z.infer<typeof PushConfigUpdate>;

const policyFields = {
  name: z.string().min(1).max(100),
  description: z.string().max(500),
  allowedPlugins: z.array(PackageName).max(100),
  allowedActions: z.array(z.enum(PUSH_ACTIONS)).min(1).max(PUSH_ACTIONS.length),
};

export const PushPolicyCreate = z
  .object({ ...policyFields, description: policyFields.description.default(''), allowedActions: policyFields.allowedActions.default(['install', 'update']) })
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

/** At most a week: push-install is a window an admin opens, not a standing permission. */
export const PushEnable = z
  .object({ durationMinutes: z.number().int().min(1).max(7 * 24 * 60).default(60), policyId: PolicyId.optional() })
  .strict();
export type PushEnable = z.infer<typeof PushEnable>;

export const PushRequest = z.object({ packageName: PackageName, action: z.enum(PUSH_ACTIONS).default('install') }).strict();
export type PushRequest = z.infer<typeof PushRequest>;

export const PushSessionsQuery = z.object({ label: z.string().max(64).optional() });
export type PushSessionsQuery = z.infer<typeof PushSessionsQuery>;
