import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface FieldProps {
  label: string;
  value: string;
  onInput(value: string): void;
  error?: string;
  type?: 'text' | 'email' | 'password' | 'datetime-local';
  hint?: ComponentChildren;
  required?: boolean;
  autoComplete?: string;
  inputMode?: 'numeric' | 'text' | 'email';
  name?: string;
}

/** A labelled input with its hint and the server's message for it. */
export function Field({ label, value, onInput, error, type = 'text', hint, required, autoComplete, inputMode, name }: FieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {/* preact types `type` together with `role`; the cast only widens what TypeScript accepts */}
      <input id={id} name={name} type={type as 'text'} value={value} required={required} autoComplete={autoComplete} inputMode={inputMode}
        aria-invalid={error ? 'true' : undefined} aria-describedby={described}
        onInput={(e) => onInput((e.target as HTMLInputElement).value)} />
      {hint && <small id={`${id}-hint`} class="hint">{hint}</small>}
      {error && <small id={`${id}-error`} class="field-error">{error}</small>}
    </div>
  );
}

export function Check({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange(value: boolean): void; hint?: ComponentChildren }) {
  const id = useId();
  return (
    <div class="check">
      <input id={id} type="checkbox" checked={checked} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />
      <label for={id}>{label}</label>
      {hint && <small id={`${id}-hint`} class="hint">{hint}</small>}
    </div>
  );
}

/** An option is its own label, or a value shown under another name (a policy id by its name). */
export type Option<V extends string = string> = V | { value: V; label: string };

/** The value it hands back is one of its options, typed as they are (a route's enum, say). */
export function Select<V extends string>({ label, value, options, onChange, error }: { label: string; value: V; options: readonly Option<V>[]; onChange(value: V): void; error?: string }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} aria-invalid={error ? 'true' : undefined} aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange((e.target as HTMLSelectElement).value as V)}>
        {options.map((o) => (typeof o === 'string' ? <option key={o} value={o}>{o}</option> : <option key={o.value} value={o.value}>{o.label}</option>))}
      </select>
      {error && <small id={`${id}-error`} class="field-error">{error}</small>}
    </div>
  );
}

/** A labelled multi-line input (PEM blocks, JSON manifests), with its hint and the server's message. */
export function TextArea({ label, value, onInput, error, hint, required, rows = 6 }: { label: string; value: string; onInput(value: string): void; error?: string; hint?: ComponentChildren; required?: boolean; rows?: number }) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} rows={rows} value={value} required={required} spellcheck={false} aria-invalid={error ? 'true' : undefined} aria-describedby={described}
        onInput={(e) => onInput((e.target as HTMLTextAreaElement).value)} />
      {hint && <small id={`${id}-hint`} class="hint">{hint}</small>}
      {error && <small id={`${id}-error`} class="field-error">{error}</small>}
    </div>
  );
}
