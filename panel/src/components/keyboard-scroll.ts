import { useCallback, useEffect, useRef } from 'preact/hooks';

// A box that scrolls (a wide table or command on a phone) must be reachable by keyboard, or its
// hidden part cannot be read without a mouse: it takes focus (arrow keys then scroll it) while it
// scrolls, and only then, so a wide screen gets no extra tab stop.

/** A callback ref for the scrolling box (which may come and go with its content); `label` names it for whoever lands on it. */
export function useKeyboardScroll<T extends HTMLElement>(label: string): (el: T | null) => void {
  const observer = useRef<ResizeObserver | undefined>(undefined);
  useEffect(() => () => observer.current?.disconnect(), []);
  return useCallback((el: T | null) => {
    observer.current?.disconnect();
    observer.current = undefined;
    if (!el) return;
    const update = () => {
      if (el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight) {
        el.tabIndex = 0;
        el.setAttribute('aria-label', label);
      } else {
        el.removeAttribute('tabindex');
        el.removeAttribute('aria-label');
      }
    };
    update();
    // the box narrows with the window; its content widens as rows come
    observer.current = new ResizeObserver(update);
    observer.current.observe(el);
    if (el.firstElementChild) observer.current.observe(el.firstElementChild);
  }, [label]);
}
