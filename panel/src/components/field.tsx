import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface FieldProps {
  label: string;
  value: string;
  onInput(value: string): void;
  error?: string;
  type?: 'text' | 'email' | 'password';
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
      {/* preact types `type` together with `role`; text, email and password are all text boxes */}
      <input id={id} name={name} type={type as 'text'} value={value} required={required} autoComplete={autoComplete} inputMode={inputMode}
        aria-invalid={error ? 'true' : undefined} aria-describedby={described}
        onInput={(e) => onInput((e.target as HTMLInputElement).value)} />
      {hint && <small id={`${id}-hint`} class="hint">{hint}</small>}
      {error && <small id={`${id}-error`} class="field-error">{error}</small>}
    </div>
  );
}

export function Check({ label, checked, onChange }: { label: string; checked: boolean; onChange(value: boolean): void }) {
  const id = useId();
  return (
    <div class="check">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />
      <label for={id}>{label}</label>
    </div>
  );
}

export function Select({ label, value, options, onChange }: { label: string; value: string; options: readonly string[]; onChange(value: string): void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {options.map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
    </div>
  );
}
