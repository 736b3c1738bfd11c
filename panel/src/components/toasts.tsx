// The region where toasts appear: bottom right (on a phone, along the bottom), clear of the header
// and its navigation. Successes are announced politely in a status region that is always there (a
// live region must exist before its text changes to be read); failures in an alert region that
// exists only while one is shown, so an empty page has no alert.
import { dismissToast, toasts, type Toast } from '../toasts.ts';

function Item({ toast }: { toast: Toast }) {
  return (
    <div class={`toast toast-${toast.kind}`}>
      <span class="toast-text">{toast.text}</span>
      <button type="button" class="toast-close" aria-label="Dismiss message" onClick={() => dismissToast(toast.id)}>×</button>
    </div>
  );
}

export function Toasts() {
  const all = toasts.value;
  const failures = all.filter((t) => t.kind === 'error');
  return (
    <div class="toasts">
      {failures.length > 0 && <div role="alert" aria-live="polite">{failures.map((t) => <Item key={t.id} toast={t} />)}</div>}
      <div role="status" aria-live="polite">{all.filter((t) => t.kind === 'ok').map((t) => <Item key={t.id} toast={t} />)}</div>
    </div>
  );
}
