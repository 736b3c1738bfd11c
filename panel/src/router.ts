// Client-side routes on the History API: the server answers index.html for every non-API path.
import { signal } from '@preact/signals';

export const currentPath = signal(location.pathname);

export function navigate(path: string): void {
  if (path === currentPath.value) return;
  history.pushState(null, '', path);
  currentPath.value = path;
}

addEventListener('popstate', () => { currentPath.value = location.pathname; });

/** Plain left clicks on same-origin links stay in the app. */
export function onLinkClick(event: MouseEvent): void {
  const link = (event.target as Element).closest?.('a');
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  if (link.origin !== location.origin || link.hasAttribute('download') || link.target || link.pathname.startsWith('/api/')) return;
  event.preventDefault();
  navigate(link.pathname);
}
