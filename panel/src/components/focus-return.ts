import { useEffect, useRef } from 'preact/hooks';

// Where keyboard focus goes when something a button opened (a panel, a dialog) closes: back to that
// button, so a keyboard user keeps their place in a long table instead of starting again from <body>.

/** True when focus fell to nothing, which is the only time giving it back steals nothing from the user. */
export function focusLost(): boolean {
  return !document.activeElement || document.activeElement === document.body;
}

function focusable(el: HTMLElement): HTMLElement {
  if (el.matches('table, main') || el.hasAttribute('tabindex')) {
    if (!el.hasAttribute('tabindex')) el.tabIndex = -1;
    return el;
  }
  // a section or form: its heading names where the user is
  const heading = el.querySelector<HTMLElement>('h1, h2, h3');
  const target = heading ?? el;
  if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
  return target;
}

/**
 * Remembers the focused element now; the function returned puts focus back on it, or, when it went with
 * what it acted on (a deleted row), on the nearest of its table, section or form still on the page, else <main>.
 */
export function rememberFocus(): () => void {
  const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
  const surroundings: HTMLElement[] = [];
  for (let el = opener?.parentElement; el && el !== document.body; el = el.parentElement) {
    if (el.matches('table, section, form, main')) surroundings.push(el);
  }
  return () => {
    if (opener?.isConnected) {
      // a button busy with what it started: the one that started it gives focus back when done
      if ((opener as HTMLButtonElement).disabled) return;
      opener.focus();
      if (document.activeElement === opener) return;
    }
    const place = surroundings.find((el) => el.isConnected) ?? document.querySelector<HTMLElement>('main');
    if (place) focusable(place).focus();
  };
}

/**
 * For a panel that opens on a button, often below a long list: the ref goes on its heading (with
 * tabIndex={-1}), which is brought into view and given focus when the panel mounts.
 */
export function useRevealed<T extends HTMLElement>() {
  const heading = useRef<T>(null);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: 'start' });
    heading.current?.focus({ preventScroll: true });
  }, []);
  return heading;
}
