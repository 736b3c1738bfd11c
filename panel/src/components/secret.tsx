import { useState } from 'preact/hooks';
import { renderSVG } from 'uqr';
import { inSentence } from '../format.ts';

/** Copies `text`; says so, or says how to copy by hand when the clipboard is not available. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  }
  return (
    <>
      <button type="button" class="btn" onClick={copy}>{label}</button>
      <span class="muted" role="status">{state === 'copied' ? 'Copied.' : state === 'failed' ? 'Copy failed: select the text and copy it.' : ''}</span>
    </>
  );
}

/** A value to copy, shown as selectable code. */
export function Copyable({ text, label }: { text: string; label: string }) {
  return (
    <div class="copyable">
      <code aria-label={label} tabIndex={0}>{text}</code>
      <CopyButton text={text} label={`Copy ${inSentence(label)}`} />
    </div>
  );
}

/** A QR code of `text` (an otpauth URI or an enrollment command) as inline SVG. */
export function QrCode({ text, label }: { text: string; label: string }) {
  const svg = renderSVG(text, { border: 2 });
  return <div class="qr" role="img" aria-label={label} dangerouslySetInnerHTML={{ __html: svg }} />;
}

/** A secret shown once: a warning, the value and a copy button. */
export function ShownOnce({ title, values, onDone }: { title: string; values: Record<string, string>; onDone?(): void }) {
  return (
    <section class="card secret" aria-labelledby="shown-once">
      <h3 id="shown-once">{title}</h3>
      <p class="note note-warn" role="alert">Copy this now: it is shown only once and cannot be shown again.</p>
      <dl>
        {Object.entries(values).map(([name, value]) => (
          <div key={name}><dt>{name}</dt><dd><Copyable text={value} label={name} /></dd></div>
        ))}
      </dl>
      {onDone && <button type="button" class="btn" onClick={onDone}>I have saved it</button>}
    </section>
  );
}
