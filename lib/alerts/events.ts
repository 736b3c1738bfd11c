// One alert as a webhook receives it: `{id, event, at, box, data}`, `id` naming the delivery (the
// same on every retry, so a receiver can drop repeats) and `box` the relay's domain.
import type { AlertEventName } from '../state/schemas.ts';

export type { AlertEventName };
/** `test`: sent by POST /api/alerts/webhooks/:id/test only, whatever the webhook's events. */
export type DeliveredEvent = AlertEventName | 'test';

export interface AlertEnvelope {
  id: string;
  event: DeliveredEvent;
  at: string;
  box: string | null;
  data: Record<string, unknown>;
}

export const alertBody = (envelope: AlertEnvelope): string => JSON.stringify(envelope);
