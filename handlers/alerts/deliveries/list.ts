import { z } from 'zod';
import { DeliveryShape } from '../../../lib/alerts/schema.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

const ANSWER = { schema: z.object({ deliveries: z.array(DeliveryShape) }) };

// GET /api/alerts/deliveries — the last 200 alerts sent or being sent, newest first, with each one's
// state, attempts and the receiver's last status code.
export default route({
  method: 'GET',
  path: '/api/alerts/deliveries',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  handle: ({ services }) => ({ deliveries: services.alerts.deliveries() }),
});
