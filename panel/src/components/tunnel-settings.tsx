// A tunnel's port and description, edited in a panel that opens in view with focus on its heading
// (PATCH /api/tunnels/:id/settings); the tunnels list and the tunnel's own page both open it.
import { useState } from 'preact/hooks';
import { api, type GetAnswer } from '../api.ts';
import { numberField, useForm } from '../form.ts';
import { Submit } from './action.tsx';
import { Field } from './field.tsx';
import { useRevealed } from './focus-return.ts';
import { ErrorText, Note } from './notice.tsx';

export type Tunnel = GetAnswer<'/api/tunnels'>['tunnels'][number];

export function TunnelSettings({ tunnel, onSaved, onClose }: { tunnel: Tunnel; onSaved(saved: Tunnel): Promise<void> | void; onClose(): void }) {
  const heading = useRevealed<HTMLHeadingElement>();
  const form = useForm({ port: String(tunnel.port), description: tunnel.description ?? '' });
  const [message, setMessage] = useState<string>();
  return (
    <form class="card" aria-labelledby="tunnel-settings" onSubmit={(e) => { e.preventDefault(); setMessage(undefined); void form.submit(async () => {
      const saved = await api('PATCH', `/api/tunnels/${encodeURIComponent(tunnel.id)}/settings`, { port: numberField(form.values.port), description: form.values.description });
      setMessage(`Saved: port ${saved.tunnel.port}${saved.tunnel.port !== tunnel.port ? '; restart the tunnel client with its new command' : ''}.`);
      await onSaved(saved.tunnel);
    }); }}>
      <h3 id="tunnel-settings" ref={heading} tabIndex={-1}>Edit {tunnel.subdomain}</h3>
      <ErrorText message={form.error} />
      {message && <Note kind="ok">{message}</Note>}
      <div class="grid">
        <Field label="Local port" value={form.values.port} onInput={(v) => form.set('port', v)} error={form.fieldErrors.port} inputMode="numeric"
          hint="1024 to 65535, on the client machine; a new port needs the client restarted with its new command" required />
        <Field label="Description" value={form.values.description} onInput={(v) => form.set('description', v)} error={form.fieldErrors.description} />
      </div>
      <div class="row">
        <Submit busy={form.busy}>Save tunnel</Submit>
        <button type="button" class="btn" aria-label={`Close editing of ${tunnel.subdomain}`} onClick={onClose}>Close</button>
      </div>
    </form>
  );
}
