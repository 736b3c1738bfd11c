import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, ADMIN_OR_AGENT, route, wsRoute } from '../../../lib/http/route.ts';

// Routes that exist only in tests, to drive each step of the chain on its own.

export const echoBody = route({
  method: 'POST',
  path: '/api/test/things/:id',
  access: { roles: ADMIN_OR_AGENT, gate: 'open' },
  params: z.object({ id: z.string().regex(/^\d+$/, 'id must be digits') }),
  query: z.object({ dryRun: z.enum(['yes', 'no']).optional() }),
  body: z.object({ name: z.string().min(2), size: z.number().int().max(10) }),
  handle: ({ params, query, body, identity }) => json({ params, query, body, role: identity.role }),
});

export const onboardingOnly = route({
  method: 'POST',
  path: '/api/test/onboarding-step',
  access: { roles: ADMIN_ONLY, gate: 'onboarding' },
  handle: () => json({ ok: true }),
});

export const publicRoute = route({
  method: 'GET',
  path: '/api/test/public',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', public: true },
  handle: ({ identity }) => json({ role: identity.role }),
});

export const labelled = route({
  method: 'GET',
  path: '/api/test/labelled',
  access: { roles: ADMIN_OR_AGENT, gate: 'open', needsLabel: true },
  handle: ({ identity }) => json({ label: identity.label }),
});

export const throwsTeapot = route({
  method: 'GET',
  path: '/api/test/teapot',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  handle: () => {
    throw Object.assign(new Error('I am a teapot'), { status: 418 });
  },
});

export const throwsBug = route({
  method: 'GET',
  path: '/api/test/bug',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  handle: () => {
    throw new Error('secret internal detail');
  },
});

export const throwsAppError = route({
  method: 'GET',
  path: '/api/test/conflict',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  handle: () => {
    throw new AppError(409, 'Already there', { hint: 'x' });
  },
});

export const twoFactorExempt = route({
  method: 'GET',
  path: '/api/test/2fa-exempt',
  access: { roles: ADMIN_ONLY, gate: 'open', twoFactorExempt: true },
  handle: () => json({ ok: true }),
});

export const whoAmI = route({
  method: 'GET',
  path: '/api/test/client-address',
  access: { roles: ADMIN_OR_AGENT, gate: 'open', public: true },
  handle: ({ clientAddress }) => json({ address: clientAddress() ?? null }),
});

/** Test-only WebSocket echo behind the management gate and `tunnels:read`. */
export const echoSocket = wsRoute({
  path: '/api/test/echo',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', capability: 'tunnels:read' },
  connect({ identity }, socket) {
    socket.send(JSON.stringify({ hello: identity.role, label: identity.label }));
    socket.on('message', (data) => socket.send(String(data)));
  },
});

/** Test-only WebSocket routes whose `connect` fails after the handshake (at once, and later). */
export const throwingSocket = wsRoute({
  path: '/api/test/socket-bug',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  connect() {
    throw new Error('secret internal detail');
  },
});

export const rejectingSocket = wsRoute({
  path: '/api/test/socket-async-bug',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  async connect() {
    throw new Error('secret internal detail');
  },
});

export const testRoutes = [echoBody, onboardingOnly, publicRoute, labelled, throwsTeapot, throwsBug, throwsAppError, twoFactorExempt, whoAmI, echoSocket, throwingSocket, rejectingSocket];
