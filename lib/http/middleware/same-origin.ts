import { AppError } from '../../errors.ts';
import type { Runtime } from '../../runtime.ts';
import type { AnyRoute } from '../route.ts';
import type { Middleware } from '../state.ts';

export const CROSS_ORIGIN_REFUSED = 'Cross-origin request refused';
const LOOPBACK_ONLY = 'Development mode answers only loopback hosts';

/**
 * A browser holding the admin certificate presents it to whichever page makes it send a request,
 * like a cookie: a form post or a WebSocket from another site (or from a sibling site or tunneled
 * app under the same domain, which is "same-site") would act as admin. Browsers say where a request
 * comes from (Sec-Fetch-Site, Origin); agents and curl send neither and pass.
 */
export function sameOrigin(route: AnyRoute, services: Runtime): Middleware | undefined {
  if (route.access.public) return undefined;
  const development = services.mode === 'development';
  return (request, state) => {
    if (development && state.host !== undefined && !isLoopbackHost(state.host)) throw new AppError(403, LOOPBACK_ONLY);
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

/**
 * Development mode makes every caller admin, so a page that rebinds its own name to 127.0.0.1 would
 * drive the panel with same-origin requests (any header, every answer readable). The Host is the
 * one thing its scripts cannot set.
 */
function isLoopbackHost(host: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  // `*.localhost` too (the sandbox's relay.localhost): browsers resolve it to loopback themselves,
  // so no page can rebind it elsewhere
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
