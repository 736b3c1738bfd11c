import { AppError } from '../../errors.ts';
import type { AnyRoute } from '../route.ts';
import type { Middleware } from '../state.ts';

export const CROSS_ORIGIN_REFUSED = 'Cross-origin request refused';

/**
 * A browser holding the admin certificate presents it to whichever page makes it send a request,
 * like a cookie: a form post or a WebSocket from another site (or from a sibling site or tunneled
 * app under the same domain, which is "same-site") would act as admin. Browsers say where a request
 * comes from (Sec-Fetch-Site, Origin); agents and curl send neither and pass.
 */
export function sameOrigin(route: AnyRoute): Middleware | undefined {
  if (route.access.public) return undefined;
  return (request) => {
    const { headers } = request;
    const site = headers.get('sec-fetch-site');
    if (site !== null && site !== 'same-origin' && site !== 'none') throw new AppError(403, CROSS_ORIGIN_REFUSED);
    const origin = headers.get('origin');
    if (origin !== null && !originMatches(origin, headers.get('x-forwarded-host'))) throw new AppError(403, CROSS_ORIGIN_REFUSED);
    return undefined;
  };
}

/**
 * The Origin against the host the browser addressed, which nginx passes as X-Forwarded-Host
 * ($http_host, replacing any client value). Without the proxy (development) there is nothing to
 * compare with, and Sec-Fetch-Site alone decides; an opaque origin (`null`) never matches.
 */
function originMatches(origin: string, forwardedHost: string | null): boolean {
  if (origin === 'null') return false;
  if (forwardedHost === null) return true;
  try {
    return new URL(origin).host === forwardedHost.toLowerCase();
  } catch {
    return false;
  }
}
