// Form state: values, the server's per-field issues, the overall error and the busy flag.
import { useState } from 'preact/hooks';
import { ApiError, describe } from './api.ts';

export interface Form<V> {
  values: V;
  set<K extends keyof V>(key: K, value: V[K]): void;
  fieldErrors: Record<string, string>;
  error: string | undefined;
  busy: boolean;
  /** Runs `action`; a thrown error lands next to its field (details.issues) or above the form. */
  submit(action: () => Promise<void>): Promise<void>;
  reset(): void;
}

export function useForm<V extends object>(initial: V): Form<V> {
  const [values, setValues] = useState(initial);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  return {
    values,
    set: (key, value) => setValues((v) => ({ ...v, [key]: value })),
    fieldErrors,
    error,
    busy,
    async submit(action) {
      setBusy(true);
      setError(undefined);
      setFieldErrors({});
      try {
        await action();
      } catch (e) {
        const issues = e instanceof ApiError ? e.issues : [];
        setFieldErrors(e instanceof ApiError ? e.fieldErrors() : {});
        // Issues of no input (a list item, a nested field, a JSON text) are summarised above the form.
        const unplaced = issues.filter((i) => !(i.path in values)).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
        const placed = unplaced.length < issues.length ? 'see the fields below' : '';
        setError([describe(e), [...unplaced, placed].filter(Boolean).join('; ')].filter(Boolean).join(': '));
      } finally {
        setBusy(false);
      }
    },
    reset: () => { setValues(initial); setFieldErrors({}); setError(undefined); },
  };
}
