import { z } from 'zod';

/** The policy that always exists (Portlama's id): it can be changed but not deleted. */
export const DEFAULT_POLICY_ID = 'default';

/** `[a-z0-9-]`, as Portlama's policy ids; the old UUIDs fit too. */
export const PolicyId = z.string().min(1).max(100).regex(/^[a-z0-9-]+$/, 'must be a policy id');

/**
 * `plugins.pushInstall` of the configuration: the switch and the policy an agent gets when its
 * enablement names none. Files written before the policies took Portlama's shape carry `defaultPolicyId` (null for none);
 * it is read as `defaultPolicy` (null as `default`) and the next write stores only the new name.
 */
export const PushInstallConfigSchema = z
  .object({
    enabled: z.boolean().default(false),
    defaultPolicy: PolicyId.optional(),
    defaultPolicyId: PolicyId.nullable().optional(),
  })
  .strict()
  .transform(({ enabled, defaultPolicy, defaultPolicyId }) => ({ enabled, defaultPolicy: defaultPolicy ?? defaultPolicyId ?? DEFAULT_POLICY_ID }));
export type PushInstallConfig = z.output<typeof PushInstallConfigSchema>;
