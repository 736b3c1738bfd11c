import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { describe } from '../api.ts';
import { confirmAction } from './dialogs.tsx';
import { focusLost, rememberFocus } from './focus-return.ts';

interface ActionProps {
  children: ComponentChildren;
  run(): Promise<unknown>;
  /** Asked first for destructive actions. */
  confirm?: string;
  kind?: 'danger' | 'plain' | 'primary';
  label?: string;
  onError?(message: string): void;
}

/** A button that runs a request, shows that it is busy, and reports the server's error. */
export function Action({ children, run, confirm, kind = 'plain', label, onError }: ActionProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  async function click() {
    const focusBack = rememberFocus();
    if (confirm && !(await confirmAction(confirm))) return;
    setBusy(true);
    setError(undefined);
    try {
      await run();
    } catch (e) {
      if (onError) onError(describe(e));
      else setError(describe(e));
    } finally {
      setBusy(false);
      // disabled while busy, or gone with what it deleted: focus fell to <body>, the user's place with it
      setTimeout(() => { if (focusLost()) focusBack(); });
    }
  }
  return (
    <>
      <button type="button" class={`btn btn-${kind}`} aria-label={label} disabled={busy} aria-busy={busy} onClick={click}>
        {busy ? '…' : children}
      </button>
      {error && <span class="error inline" role="alert">{error}</span>}
    </>
  );
}

export function Submit({ busy, children }: { busy: boolean; children: ComponentChildren }) {
  return <button type="submit" class="btn btn-primary" disabled={busy} aria-busy={busy}>{busy ? 'Working…' : children}</button>;
}
