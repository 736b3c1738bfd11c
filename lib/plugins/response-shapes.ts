import { z } from 'zod';
import { PluginRecord, PushPolicyRecord, PushSessionRecord } from '../state/schemas.ts';

// Answers of the plugin and push-install routes, for their documented `response` schemas.

export const PluginList = z.object({ plugins: z.array(PluginRecord) });

/** What enable and disable answer besides `ok`. */
export const pluginStatusFields = { name: z.string(), status: PluginRecord.shape.status };

export const PushPolicyList = z.object({ policies: z.array(PushPolicyRecord) });

/** Portlama's `{enabled, defaultPolicy, policies}`; `defaultPolicyId` (the same id) for our older clients. */
export const PushConfig = PushPolicyList.extend({ enabled: z.boolean(), defaultPolicy: z.string(), defaultPolicyId: z.string() });

export const PushSessionList = z.object({ sessions: z.array(PushSessionRecord) });

/** GET /api/plugins/push-install/agent-status: only what the calling agent may know of its policy. */
export const PushAgentStatus = z.object({
  label: z.string(),
  enabled: z.boolean(),
  expiresAt: z.string().nullable(),
  policy: PushPolicyRecord.pick({ id: true, name: true, allowedPlugins: true, allowedActions: true }).nullable(),
  sessions: z.array(PushSessionRecord),
  /** Portlama's names for the same answer. */
  pushInstallEnabled: z.boolean(),
  pushInstallEnabledUntil: z.string().nullable(),
  pushInstallPolicy: z.string().nullable(),
});
