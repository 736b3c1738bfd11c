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
        const fields = e instanceof ApiError ? e.fieldErrors() : {};
        setFieldErrors(fields);
        const unplaced = e instanceof ApiError && e.issues.some((i) => !(i.path in values));
        setError(Object.keys(fields).length && !unplaced ? `${describe(e)}: see the fields below` : describe(e));
      } finally {
        setBusy(false);
      }
    },
    reset: () => { setValues(initial); setFieldErrors({}); setError(undefined); },
  };
}
