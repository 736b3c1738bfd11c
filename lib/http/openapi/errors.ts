import { isMultipartSpec } from '../multipart.ts';
import type { AnyRoute } from '../route.ts';

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
const answer = (description: string) => ({ description, content: errorContent });

/**
 * The `{error, details?}` answers the chain can give before or besides the handler, from the
 * route's access rules and schemas (lib/http/middleware); the route's own `answers` add the rest
 * (see declaredAnswers).
 */
export function errorAnswers(route: AnyRoute): Record<string, unknown> {
  const { access } = route;
  const body = route.kind === 'http' ? route.body : undefined;
  const answers: Record<string, unknown> = {};
  if (route.params || route.query || body || access.needsLabel) answers['400'] = answer(`Validation failed (details.issues), or a certificate without the required agent label`);
  if (!access.public && !access.twoFactorExempt) answers['401'] = answer('2fa_required: the admin 2FA session is missing or expired');
  if (!access.public) answers['403'] = answer('mTLS certificate required, revoked, or insufficient certificate scope/capability; a browser request from another origin');
  if (route.params) answers['404'] = answer('Not found');
  if (access.gate === 'onboarding') answers['410'] = answer('Onboarding already completed');
  // an upload whose refusals are worded by its route answers them all as 400 (its `answers`)
  const ownRefusals = isMultipartSpec(body) && body.refusalPrefix !== undefined;
  if (body && !ownRefusals) answers['413'] = answer('Request body too large');
  if (body && !ownRefusals) answers['415'] = answer(isMultipartSpec(body) ? 'Content-Type must be multipart/form-data' : 'Content-Type must be application/json');
  if (route.kind === 'ws') answers['426'] = answer('Upgrade required');
  answers['500'] = answer('Internal server error; a failing disk names its cause in details (Storage failed: ENOSPC: no space left on device)');
  if (access.gate === 'management') answers['503'] = answer('Onboarding not complete (onboardingStatus)');
  return answers;
}

/**
 * The route's own `answers` (lib/http/route.ts): an error status with the error shape, a second
 * success with the success answer's content. A status the chain documents too keeps both meanings.
 */
export function declaredAnswers(route: AnyRoute, chain: Record<string, unknown>, success: Record<string, unknown>): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(route.answers ?? {})) {
    const known = chain[status] as { description: string } | undefined;
    const said = known ? `${known.description}; ${description}` : description;
    answers[status] = Number(status) < 400 ? { ...success, description: said } : answer(said);
  }
  return answers;
}
