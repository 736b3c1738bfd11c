import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';
import { ONBOARDING_STATUSES } from '../../lib/config.ts';
import { okWith } from '../../lib/http/response-shapes.ts';

const ANSWER = { status: 202, schema: okWith({ started: z.boolean(), status: z.enum(ONBOARDING_STATUSES), message: z.string(), stream: z.string() }) };

// POST /api/onboarding/provision — 202 at once; the tasks run in the background and report on the
// stream. While a run is active another POST starts nothing (`started: false`).
export default route({
  method: 'POST',
  path: '/api/onboarding/provision',
  access: { roles: ADMIN_ONLY, gate: 'onboarding' },
  answers: { 409: 'The onboarding status does not allow this step (details name the current one)' },
  response: ANSWER,
  async handle({ services }) {
    const { started, status } = await services.onboarding.provision();
    const message = started ? 'Provisioning started' : 'Provisioning is already running';
    return { ok: true, started, status, message, stream: '/api/onboarding/provision/stream' };
  },
});
