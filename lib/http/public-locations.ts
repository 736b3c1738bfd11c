import type { PublicLocations } from '../system/types.ts';
import type { RouteEntry } from './lazy-route.ts';

/**
 * Parts of the single-page client (not routes) that must open without a certificate: the
 * invitation page a new user follows to /api/invite/:token, and the client's hashed script and
 * style files that page loads (public code, no data).
 */
const PUBLIC_CLIENT_PAGES = ['/assets/', '/invite/'];

/**
 * The nginx locations of the routes marked public: a static path is an exact location; a path
 * with parameters opens everything under its static part (`/api/invite/:token/accept` -> `/api/invite/`).
 */
export function publicLocations(routes: readonly RouteEntry[]): PublicLocations {
  const exact = new Set<string>();
  const prefix = new Set<string>(PUBLIC_CLIENT_PAGES);
  for (const { path, access } of routes) {
    if (!access.public) continue;
    const dynamic = path.search(/[:*]/);
    if (dynamic < 0) {
      exact.add(path);
      continue;
    }
    const opened = path.slice(0, path.lastIndexOf('/', dynamic) + 1);
    // `/api/:x` would open the whole API to anyone
    if (opened.split('/').filter(Boolean).length < 2) throw new Error(`public route ${path} would open all of ${opened}`);
    prefix.add(opened);
  }
  return { exact: [...exact].sort(), prefix: [...prefix].sort() };
}
