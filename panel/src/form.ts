// Form state: values, the server's per-field issues, the overall error and the busy flag.
import { useState } from 'preact/hooks';
import { ApiError, describe } from './api.ts';
import { actionStarted, actionStarts, showToast } from './toasts.ts';

export interface Form<V> {
  values: V;
  set<K extends keyof V>(key: K, value: V[K]): void;
  fieldErrors: Record<string, string>;
  /** Shown above the form until the next action starts, this form's or any other. */
  error: string | undefined;
  busy: boolean;
  /**
   * Runs `action`; a thrown error lands next to its field (details.issues) or above the form.
   * `done` is said in a toast when it succeeded: a text, or a function of what `action` returned.
   */
  submit<T>(action: () => Promise<T>, done?: string | ((result: T) => string | undefined)): Promise<void>;
  reset(): void;
}

export function useForm<V extends object>(initial: V): Form<V> {
  const [values, setValues] = useState(initial);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  // with the count of actions started when it was set: a later action makes it old news
  const [error, setError] = useState<{ message: string; at: number }>();
  const [busy, setBusy] = useState(false);
  const started = actionStarts.value;
  return {
    values,
    set: (key, value) => setValues((v) => ({ ...v, [key]: value })),
    fieldErrors,
    error: error?.at === started ? error.message : undefined,
    busy,
    async submit(action, done) {
      setBusy(true);
      const at = actionStarted();
      setError(undefined);
      setFieldErrors({});
      try {
        const result = await action();
        const said = typeof done === 'function' ? done(result) : done;
        if (said) showToast('ok', said);
      } catch (e) {
        const issues = e instanceof ApiError ? e.issues : [];
        setFieldErrors(e instanceof ApiError ? e.fieldErrors() : {});
        // Issues of no input (a list item, a nested field, a JSON text) are summarised above the form.
        const unplaced = issues.filter((i) => !(i.path in values)).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
        const placed = unplaced.length < issues.length ? 'see the fields below' : '';
        setError({ message: [describe(e), [...unplaced, placed].filter(Boolean).join('; ')].filter(Boolean).join(': '), at });
      } finally {
        setBusy(false);
      }
    },
    reset: () => { setValues(initial); setFieldErrors({}); setError(undefined); },
  };
}

/**
 * A number input's text as the number a route takes. Anything but digits goes as typed, so the
 * server's own field message names it; the type says number because that is all the route accepts.
 */
export function numberField(text: string): number {
  const trimmed = text.trim();
  return (/^\d+$/.test(trimmed) ? Number(trimmed) : text) as number;
}
