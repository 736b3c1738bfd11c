// Modal questions: "are you sure?" before destructive actions, and the admin 2FA code.
import { signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describe, twoFactorAsk, verifyTwoFactor } from '../api.ts';
import { Field } from './field.tsx';
import { rememberFocus } from './focus-return.ts';
import { ErrorText } from './notice.tsx';

const pendingConfirm = signal<{ message: string; answer(ok: boolean): void } | null>(null);

/** Asks; however the dialog closes (Escape, Cancel, Yes), focus goes back to what had it when asked. */
export function confirmAction(message: string): Promise<boolean> {
  const focusBack = rememberFocus();
  return new Promise((resolve) => {
    pendingConfirm.value = { message, answer: (ok) => {
      pendingConfirm.value = null;
      resolve(ok);
      // once the dialog is gone: while it is open, nothing outside it can take focus
      setTimeout(focusBack);
    } };
  });
}

/** A native modal <dialog>: focus moves into it, Escape cancels. */
function Modal({ title, onCancel, children }: { title: string; onCancel(): void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="modal-title" onCancel={(e) => { e.preventDefault(); onCancel(); }}>
      <h2 id="modal-title">{title}</h2>
      {children}
    </dialog>
  );
}

function ConfirmDialog() {
  const ask = pendingConfirm.value;
  if (!ask) return null;
  return (
    <Modal title="Please confirm" onCancel={() => ask.answer(false)}>
      <p>{ask.message}</p>
      <div class="row">
        <button type="button" class="btn btn-danger" onClick={() => ask.answer(true)}>Yes, continue</button>
        <button type="button" class="btn" autoFocus onClick={() => ask.answer(false)}>Cancel</button>
      </div>
    </Modal>
  );
}

function TwoFactorDialog() {
  const ask = twoFactorAsk.value;
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  if (!ask) return null;
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await verifyTwoFactor(code.trim());
      setCode('');
      ask!.done(true);
    } catch (e) {
      setError(describe(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Modal title="Two-factor code" onCancel={() => ask.done(false)}>
      <form onSubmit={submit}>
        <p>This panel has two-factor authentication on. Enter the 6-digit code from your authenticator app.</p>
        <Field label="Code" value={code} onInput={setCode} inputMode="numeric" autoComplete="one-time-code" required />
        <ErrorText message={error} />
        <div class="row">
          <button type="submit" class="btn btn-primary" disabled={busy}>{busy ? 'Checking…' : 'Verify'}</button>
          <button type="button" class="btn" onClick={() => ask.done(false)}>Cancel</button>
        </div>
      </form>
    </Modal>
  );
}

export function Dialogs() {
  return <><ConfirmDialog /><TwoFactorDialog /></>;
}
