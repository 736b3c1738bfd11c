// POST /api/tickets/scopes from the tickets page: a scope arrives as the JSON manifest the software
// using it ships, so it is pasted whole rather than typed field by field.
import { useState } from 'preact/hooks';
import { api, ApiError, type UrlBody } from '../api.ts';
import { Submit } from '../components/action.tsx';
import { TextArea } from '../components/field.tsx';
import { ErrorText, Note } from '../components/notice.tsx';
import { useForm } from '../form.ts';

const SHAPE = '{"name", "version", "description", "scopes": [{"name": "scope:action", "description", "instanceScoped"}], '
  + '"transport": {"strategies": ["tunnel" | "relay" | "direct"], "preferred", "port": 0 or 1024-65535, "protocol": "wss" | "tcp"}}';

export function RegisterScope({ onDone }: { onDone(): Promise<void> }) {
  const form = useForm({ manifest: '' });
  const [registered, setRegistered] = useState<string[]>();
  return (
    <form aria-labelledby="register-scope" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      setRegistered(undefined);
      // the admin's own text: the server checks it against the schema and names what is wrong
      let manifest: UrlBody<'POST', '/api/tickets/scopes'>;
      try {
        manifest = JSON.parse(form.values.manifest);
      } catch (error) {
        // status 0 like the panel's other errors that no server answer carries
        throw new ApiError(0, `The manifest is not JSON: ${(error as Error).message}`, undefined, [], undefined);
      }
      const answer = await api('POST', '/api/tickets/scopes', manifest);
      setRegistered(answer.registered);
      form.reset();
      await onDone();
    }); }}>
      <h3 id="register-scope">Register a scope</h3>
      <ErrorText message={form.error} />
      <TextArea label="Scope manifest (JSON)" value={form.values.manifest} onInput={(v) => form.set('manifest', v)} hint={SHAPE} required />
      <Submit busy={form.busy}>Register scope</Submit>
      {registered && <Note kind="ok">Registered capabilities: {registered.join(', ')}. Agents can now be granted them.</Note>}
    </form>
  );
}
