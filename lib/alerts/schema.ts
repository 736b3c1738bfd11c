import { z } from 'zod';
import { UuidParam } from '../uuid-param.ts';
import { AlertEventName, WebhookRecord } from '../state/schemas.ts';

// API inputs and answers of /api/alerts (docs/decisions.md > Alerts).

export const MAX_WEBHOOKS = 20;
const DEFAULT_TUNNEL_DOWN_MINUTES = 5;

const WebhookUrl = z
  .string()
  .max(2048, 'url must be at most 2048 characters')
  .refine((text) => {
    try {
      const url = new URL(text);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
    } catch {
      return false;
    }
  }, 'url must be an http or https URL without credentials');

const Secret = z.string().min(16, 'secret must be at least 16 characters').max(256, 'secret must be at most 256 characters');
const Events = z.array(AlertEventName).min(1, 'events must name at least one event').max(AlertEventName.options.length);
const TunnelDownMinutes = z.number().int('tunnelDownMinutes must be an integer').min(1).max(1440);

export const WebhookCreate = z.object({
  url: WebhookUrl,
  /** a new random one when omitted; shown in this answer only */
  secret: Secret.optional(),
  events: Events,
  tunnelDownMinutes: TunnelDownMinutes.default(DEFAULT_TUNNEL_DOWN_MINUTES),
  enabled: z.boolean().default(true),
});
export type WebhookCreate = z.infer<typeof WebhookCreate>;

/** Any subset; a new `secret` replaces the old one. */
export const WebhookUpdate = z.object({
  url: WebhookUrl.optional(),
  secret: Secret.optional(),
  events: Events.optional(),
  tunnelDownMinutes: TunnelDownMinutes.optional(),
  enabled: z.boolean().optional(),
});
export type WebhookUpdate = z.infer<typeof WebhookUpdate>;

/** GET /api/alerts/settings, and PATCH's `settings`. */
export const AlertSettings = z.object({
  /** loopback, private networks (RFC 1918, CGNAT, fc00::/7) and inward names as webhook targets; off by default */
  allowPrivateTargets: z.boolean(),
});
export type AlertSettings = z.infer<typeof AlertSettings>;

export const AlertSettingsUpdate = AlertSettings;
export type AlertSettingsUpdate = z.infer<typeof AlertSettingsUpdate>;

export const WebhookIdParams = z.object({ id: UuidParam });
export type WebhookIdParams = z.infer<typeof WebhookIdParams>;

/** A webhook as the API shows it: never its secret. */
export const PublicWebhook = WebhookRecord.omit({ secret: true });
export type PublicWebhook = z.infer<typeof PublicWebhook>;

export const DeliveryShape = z.object({
  id: z.string(),
  webhookId: z.string(),
  event: z.union([AlertEventName, z.literal('test')]),
  state: z.enum(['pending', 'sending', 'delivered', 'failed', 'dropped']),
  attempts: z.number().int(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  lastAttemptAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
});

export const WEBHOOK_NOT_FOUND = 'Webhook not found';
/** The API description of the 400 a target refused gives (lib/alerts/target.ts says why in the issue). */
export const URL_REFUSED =
  'Validation failed with a `url` issue saying why: the URL points at loopback, a private network (RFC 1918, CGNAT, fc00::/7), ' +
  'an inward name or the relay itself while private targets are off (PATCH /api/alerts/settings), or at an unspecified, ' +
  'link-local, multicast, broadcast, reserved or cloud metadata address, which is never allowed';
export const TOO_MANY_WEBHOOKS = `At most ${MAX_WEBHOOKS} webhooks`;
