import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { describe } from '../api.ts';
import { actionStarted, onNextActionStart, showToast } from '../toasts.ts';
import { confirmAction } from './dialogs.tsx';
import { focusLost, rememberFocus } from './focus-return.ts';

interface ActionProps<T> {
  children: ComponentChildren;
  run(): Promise<T>;
  /** Asked first for destructive actions. */
  confirm?: string;
  kind?: 'danger' | 'plain' | 'primary';
  label?: string;
  /** Said in a toast once `run` succeeded; a function of what it returned, or nothing to say nothing. */
  done?: string | ((result: T) => string | undefined);
  /**
   * The page shows the failure itself (else it is a toast); it is handed `undefined` when a later
   * action starts, anywhere in the panel, so the page's text never outlives the action it was about.
   */
  onError?(message: string | undefined): void;
}

/** A button that runs a request, shows that it is busy, and says how it went. */
export function Action<T>({ children, run, confirm, kind = 'plain', label, done, onError }: ActionProps<T>) {
  const [busy, setBusy] = useState(false);
  async function click() {
    const focusBack = rememberFocus();
    if (confirm && !(await confirmAction(confirm))) return;
    setBusy(true);
    actionStarted();
    try {
      const result = await run();
      const said = typeof done === 'function' ? done(result) : done;
      if (said) showToast('ok', said);
    } catch (e) {
      if (!onError) showToast('error', describe(e));
      else {
        onError(describe(e));
        onNextActionStart(() => onError(undefined));
      }
    } finally {
      setBusy(false);
      // disabled while busy, or gone with what it deleted: focus fell to <body>, the user's place with it
      setTimeout(() => { if (focusLost()) focusBack(); });
    }
  }
  return (
    <button type="button" class={`btn btn-${kind}`} aria-label={label} disabled={busy} aria-busy={busy} onClick={click}>
      {busy ? '…' : children}
    </button>
  );
}

export function Submit({ busy, children }: { busy: boolean; children: ComponentChildren }) {
  return <button type="submit" class="btn btn-primary" disabled={busy} aria-busy={busy}>{busy ? 'Working…' : children}</button>;
}
