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

export interface FormOptions<V> {
  /**
   * Inputs that hold a list as text (sources separated by commas): an issue on one item
   * (`allow.1`) is shown under that input, not summarised above the form.
   */
  lists?: readonly (keyof V & string)[];
}

/** The input an issue's path belongs to, or null for one of no input. */
export function inputOf<V extends object>(path: string, values: V, lists: readonly string[]): string | null {
  if (path in values) return path;
  const head = path.split('.')[0]!;
  return lists.includes(head) && /^\d+$/.test(path.slice(head.length + 1)) ? head : null;
}

export function useForm<V extends object>(initial: V, options: FormOptions<V> = {}): Form<V> {
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
        const lists = options.lists ?? [];
        // by path, as sent (a page may show a nested one itself), then each list item's under its list
        const byInput = e instanceof ApiError ? e.fieldErrors() : {};
        for (const i of issues) {
          const input = inputOf(i.path, values, lists);
          // several items wrong: each one's message under the input
          if (input !== null && input !== i.path) byInput[input] = byInput[input] ? `${byInput[input]}; ${i.message}` : i.message;
        }
        setFieldErrors(byInput);
        // Issues of no input (an item of a list not declared so, a nested field, a JSON text) are summarised above the form.
        const unplaced = issues.filter((i) => inputOf(i.path, values, lists) === null).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
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
