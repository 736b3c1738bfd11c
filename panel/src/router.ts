// Client-side routes on the History API: the server answers index.html for every non-API path.
// The path picks the page; the query is the page's own state (a list's search, filter, sort, page).
import { batch, signal } from '@preact/signals';

export const currentPath = signal(location.pathname);
/** `location.search` as the app last set it: '' or '?…' */
export const currentQuery = signal(location.search);

/**
 * Goes to `to` (a path with an optional query). `replace` rewrites the current history entry
 * instead of adding one: for changes Back should skip, like each keystroke of a search.
 */
export function navigate(to: string, { replace = false } = {}): void {
  const url = new URL(to, location.href);
  if (url.pathname === currentPath.value && url.search === currentQuery.value) return;
  history[replace ? 'replaceState' : 'pushState'](null, '', url.pathname + url.search);
  batch(() => {
    currentPath.value = url.pathname;
    currentQuery.value = url.search;
  });
}

addEventListener('popstate', () => {
  batch(() => {
    currentPath.value = location.pathname;
    currentQuery.value = location.search;
  });
});

/** Plain left clicks on same-origin links stay in the app. */
export function onLinkClick(event: MouseEvent): void {
  const link = (event.target as Element).closest?.('a');
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  if (link.origin !== location.origin || link.hasAttribute('download') || link.target || link.pathname.startsWith('/api/')) return;
  event.preventDefault();
  navigate(link.pathname + link.search);
}
