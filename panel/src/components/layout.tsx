import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { inFlight } from '../api.ts';
import { currentPath } from '../router.ts';

export const NAV: readonly { path: string; label: string }[] = [
  { path: '/', label: 'Dashboard' },
  { path: '/tunnels', label: 'Tunnels' },
  { path: '/sites', label: 'Sites' },
  { path: '/services', label: 'Services' },
  { path: '/users', label: 'Users' },
  { path: '/access', label: 'Access' },
  { path: '/certs', label: 'Certificates & agents' },
  { path: '/tickets', label: 'Tickets' },
  { path: '/plugins', label: 'Plugins' },
  { path: '/alerts', label: 'Alerts' },
  { path: '/audit', label: 'Audit log' },
  { path: '/settings', label: 'Settings' },
];

/** The progress line: visible while any request is in flight. */
export function Progress() {
  const busy = inFlight.value > 0;
  return (
    <div class={busy ? 'progress active' : 'progress'} role="status" aria-live="polite">
      <span class="visually-hidden">{busy ? 'Working…' : ''}</span>
    </div>
  );
}

export function Shell({ nav, children }: { nav: boolean; children: ComponentChildren }) {
  const path = currentPath.value;
  const first = useRef(true);
  // After a client-side navigation, keyboard and screen-reader users continue in the new page.
  useEffect(() => {
    if (first.current) first.current = false;
    else document.getElementById('main')?.focus();
  }, [path]);
  const active = (p: string) => (p === '/' ? path === '/' : path === p || path.startsWith(`${p}/`));
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <Progress />
      {nav ? <NavHeader active={active} /> : <header class="top"><span class="brand">relay-panel</span></header>}
      <main id="main" tabIndex={-1}>{children}</main>
    </>
  );
}

/**
 * The header with the sections. On a phone the links fold behind a menu button (the CSS hides the
 * button and always shows the links on wider screens); it opens in place, pushing the page down
 * rather than covering it, and keeps focus on the button.
 */
function NavHeader({ active }: { active: (path: string) => boolean }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  return (
    <header class={open ? 'top nav-open' : 'top'}>
      <span class="brand">relay-panel</span>
      <button ref={button} type="button" class="menu-toggle" aria-expanded={open} aria-controls="sections" onClick={() => setOpen(!open)}>
        Menu
      </button>
      <nav id="sections" aria-label="Sections">
        <ul>
          {NAV.map((n) => (
            <li key={n.path}>
              <a href={n.path} aria-current={active(n.path) ? 'page' : undefined} onClick={() => setOpen(false)}>{n.label}</a>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  );
}
