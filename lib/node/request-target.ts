/**
 * The URL the app sees: a fixed origin plus the request target. The client's Host never takes part:
 * a malformed one (`a^b`) made the adapter's URL constructor throw, and one holding `\` or `?`
 * (`x\api\tunnels?`) moved the path the router saw away from the one the proxy checked.
 */
export const APP_ORIGIN = 'http://localhost';
export const APP_HOST = 'localhost';

/**
 * The origin-form target (`/path?query`) of a request target, or undefined when there is none:
 * absolute-form (`http://host/path`, RFC 9112 §3.2.2) gives its path; `*` and anything else have none.
 */
export function originTarget(target: string | undefined): string | undefined {
  if (!target) return undefined;
  if (target.startsWith('/')) return hasBackslashInPath(target) ? undefined : target;
  if (!/^https?:\/\//i.test(target) || hasBackslashInPath(target)) return undefined;
  try {
    const url = new URL(target);
    return url.pathname + url.search;
  } catch {
    return undefined;
  }
}

/**
 * A `\` before the query: the URL parser reads it as `/` (and then resolves `..\`), while nginx
 * matches its locations on the literal bytes, so `/api/invite/..\onboarding\status` would pass the
 * proxy as a public invite path and reach the router as another route.
 */
function hasBackslashInPath(target: string): boolean {
  const query = target.indexOf('?');
  const at = target.indexOf('\\');
  return at >= 0 && (query < 0 || at < query);
}
