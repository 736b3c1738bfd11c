import { z } from 'zod';
import { AccessRecord, ACCESS_MODES } from '../state/schemas.ts';

// The access routes' answers (their OpenAPI response schemas and the panel's types).

export const AppRefShape = z.object({ kind: z.enum(['tunnel', 'site']), id: z.string(), fqdn: z.string(), name: z.string() });

export const AccessAnswer = z.object({
  ok: z.literal(true),
  app: AppRefShape,
  access: AccessRecord,
  /** sites only: whether the portal guards it at all (its access applies only then) */
  protected: z.boolean().optional(),
  /** said when the answer opens a tunnel to everyone */
  warning: z.string().optional(),
});

export const GroupsAnswer = z.object({
  groups: z.array(z.object({ name: z.string(), members: z.array(z.string()), apps: z.array(AppRefShape) })),
});

export const ReachAnswer = z.object({
  user: z.string(),
  apps: z.array(AppRefShape.extend({ mode: z.enum(ACCESS_MODES), via: z.string() })),
});

export const PUBLIC_WARNING = 'This tunnel is PUBLIC: anyone on the internet reaches it, with no sign-in. Its app must do its own authentication.';
